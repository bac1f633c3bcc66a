//! Reading a capability's secret where the policy says it lives. Only the service does this,
//! and only for an approved execution (`workflow::release`); the value is never stored,
//! logged or audited.

use assent_core::capability::MAX_SECRET_BYTES;
use assent_core::SecretSource;

/// The secret of `source`; `home` expands a `file:~/…` path. The error says what is missing,
/// never a value.
pub fn resolve(source: &SecretSource, home: &str) -> Result<String, String> {
    let value = match source {
        SecretSource::Env(name) => match std::env::var(name) {
            Ok(value) => value,
            Err(std::env::VarError::NotPresent) => {
                return Err(format!("the service's environment has no {name}"))
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(format!("the service's {name} is not UTF-8"))
            }
        },
        SecretSource::File(path) => {
            let full = match path.strip_prefix("~/") {
                Some(rest) => format!("{}/{rest}", home.trim_end_matches('/')),
                None => path.clone(),
            };
            let bytes = std::fs::read(&full)
                .map_err(|err| format!("the service cannot read {path}: {err}"))?;
            String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text"))?
        }
        SecretSource::Keyring(item) => {
            return Err(format!(
                "keyring item {item}: the service cannot reach the Secret Service"
            ))
        }
    };
    let value = value.strip_suffix('\n').unwrap_or(&value).to_owned();
    if value.is_empty() {
        return Err("the secret is empty".to_owned());
    }
    if value.len() > MAX_SECRET_BYTES || value.contains('\0') {
        return Err(format!(
            "the secret must be at most {MAX_SECRET_BYTES} bytes without NUL"
        ));
    }
    Ok(value)
}
