//! Outbound webhooks, for `assent webhooks add|list|remove|deliveries` (a platform admin's
//! token).

use std::time::Instant;

use assent_protocol::{WebhookCreate, WebhookCreated, WebhookDeliveryList, WebhookList};

use crate::blocking;
use crate::error::ClientError;
use crate::wire::encode_segment;

impl blocking::Client {
    /// `POST /v1/webhooks`: the new webhook's id and its secret (shown this once).
    pub fn webhook_create(
        &self,
        request: &WebhookCreate,
        deadline: Instant,
    ) -> Result<WebhookCreated, ClientError> {
        let body = serde_json::to_vec(request)
            .map_err(|err| ClientError::Config(format!("cannot encode the request: {err}")))?;
        self.call("POST", "/v1/webhooks", Some(&body), deadline)
    }

    /// `GET /v1/webhooks`.
    pub fn webhook_list(&self, deadline: Instant) -> Result<WebhookList, ClientError> {
        self.call("GET", "/v1/webhooks", None, deadline)
    }

    /// `DELETE /v1/webhooks/{id}`.
    pub fn webhook_remove(&self, id: &str, deadline: Instant) -> Result<(), ClientError> {
        let target = format!("/v1/webhooks/{}", encode_segment(id));
        let (status, bytes) = self.raw("DELETE", &target, None, deadline)?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ClientError::from_status(status, &bytes))
        }
    }

    /// `GET /v1/webhooks/{id}/deliveries`: the newest first, with every attempt.
    pub fn webhook_deliveries(
        &self,
        id: &str,
        deadline: Instant,
    ) -> Result<WebhookDeliveryList, ClientError> {
        let target = format!("/v1/webhooks/{}/deliveries", encode_segment(id));
        self.call("GET", &target, None, deadline)
    }
}
