//! Prints the service's OpenAPI document (`GET /v1/openapi.json`) as pretty JSON: the source
//! of the window's generated TypeScript types (`ui/openapi.json`, `npm run gen` in `ui/`).

use utoipa::OpenApi;

fn main() -> Result<(), serde_json::Error> {
    println!("{}", assent_server::ApiDoc::openapi().to_pretty_json()?);
    Ok(())
}
