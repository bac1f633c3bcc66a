//! An index over many grants: lookup touches only the grants that could cover an action.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::evaluation::Evaluation;
use crate::grant::ApprovalGrant;
use crate::request::ActionRequest;
use crate::types::ScopeKind;

/// The most specific constraint of a grant, which files it in the index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Action(String),
    Batch(String),
    Profile(String),
    TaskType(String),
    Repo(String),
    Unkeyed,
}

fn key_of(grant: &ApprovalGrant) -> Key {
    let c = &grant.constraints;
    if let Some(h) = &c.action_hash {
        Key::Action(h.clone())
    } else if let Some(b) = &c.batch_key {
        Key::Batch(b.clone())
    } else if let Some(p) = &c.profile {
        Key::Profile(p.clone())
    } else if let Some(t) = &c.task_type {
        Key::TaskType(t.clone())
    } else if let Some(r) = &c.repo {
        Key::Repo(r.clone())
    } else {
        Key::Unkeyed
    }
}

/// Grants by id, filed under their most specific constraint.
#[derive(Debug, Clone, Default)]
pub struct GrantIndex {
    grants: HashMap<String, ApprovalGrant>,
    buckets: HashMap<Key, Vec<String>>,
}

impl GrantIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `grant`, replacing one with the same id.
    pub fn insert(&mut self, grant: ApprovalGrant) {
        self.remove(&grant.grant_id);
        self.buckets
            .entry(key_of(&grant))
            .or_default()
            .push(grant.grant_id.clone());
        self.grants.insert(grant.grant_id.clone(), grant);
    }

    /// Removes and returns the grant `grant_id`.
    pub fn remove(&mut self, grant_id: &str) -> Option<ApprovalGrant> {
        let grant = self.grants.remove(grant_id)?;
        let key = key_of(&grant);
        if let Some(ids) = self.buckets.get_mut(&key) {
            ids.retain(|id| id != grant_id);
            if ids.is_empty() {
                self.buckets.remove(&key);
            }
        }
        Some(grant)
    }

    pub fn get(&self, grant_id: &str) -> Option<&ApprovalGrant> {
        self.grants.get(grant_id)
    }

    /// Mutable access for use counts and revocation (the constraints must not change).
    pub fn get_mut(&mut self, grant_id: &str) -> Option<&mut ApprovalGrant> {
        self.grants.get_mut(grant_id)
    }

    pub fn len(&self) -> usize {
        self.grants.len()
    }

    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &ApprovalGrant> {
        self.grants.values()
    }

    /// The narrowest active grant that covers `request` asked by `requester`, if any (once
    /// before run before command profile before path pattern before task type before repo).
    pub fn find(
        &self,
        request: &ActionRequest,
        eval: &Evaluation,
        requester: &str,
        now: DateTime<Utc>,
    ) -> Option<&ApprovalGrant> {
        let ctx = &request.context;
        let keys = [
            Some(Key::Action(eval.action_hash.clone())),
            Some(Key::Batch(eval.batch_key.clone())),
            eval.decision.profile.clone().map(Key::Profile),
            ctx.task_type.clone().map(Key::TaskType),
            ctx.repo.clone().map(Key::Repo),
            Some(Key::Unkeyed),
        ];
        keys.iter()
            .flatten()
            .filter_map(|k| self.buckets.get(k))
            .flatten()
            .filter_map(|id| self.grants.get(id))
            .filter(|g| g.covers(request, eval, requester, now).is_ok())
            .min_by_key(|g| (scope_rank(g.scope_kind), g.expires_at))
    }
}

fn scope_rank(scope: ScopeKind) -> u8 {
    match scope {
        ScopeKind::Once => 0,
        ScopeKind::Run => 1,
        ScopeKind::CommandProfile => 2,
        ScopeKind::PathPattern => 3,
        ScopeKind::TaskType => 4,
        ScopeKind::Repo => 5,
        ScopeKind::Exception => 6,
        ScopeKind::Org => 7,
    }
}
