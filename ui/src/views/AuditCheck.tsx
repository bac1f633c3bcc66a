import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { auditSummary, fingerprint } from '../settings';
import type { AuditKeyInfo, AuditVerification, CommandError } from '../types';

const said = (err: unknown) => (err as CommandError).message ?? String(err);

/** Settings' audit section: the key that signs the chain's checkpoints (to copy and keep
 * apart from the service), and the service's check of the chain, run when Settings opens. */
export function AuditCheck() {
  const [key, setKey] = useState<AuditKeyInfo | null>(null);
  const [keyError, setKeyError] = useState<string | null>(null);
  const [result, setResult] = useState<AuditVerification | null>(null);
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);

  const verify = async () => {
    setChecking(true);
    setError(null);
    try {
      setResult(await api.auditVerify());
    } catch (err) {
      setResult(null);
      setError(`Cannot check the audit: ${said(err)}`);
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => {
    api
      .auditKey()
      .then(setKey)
      .catch((err: unknown) => setKeyError(`Cannot read the audit key: ${said(err)}`));
    void verify();
  }, []);
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied.');
    } catch {
      setCopied('Select the key and copy it (Ctrl+C): this window may not write the clipboard.');
    }
  };
  const summary = result ? auditSummary(result.report) : null;

  return (
    <section data-testid="audit">
      <h2>Audit</h2>
      <p class="sub">
        Every decision is a link of a hash chain, and its head is signed with this key. Keep the key somewhere of your own to check an
        export away from the service: <code>assent audit verify --from FILE --key KEY</code>
      </p>
      {key ? (
        <>
          <p>
            Fingerprint <code data-testid="audit-fingerprint">{fingerprint(key.key_id)}</code>
          </p>
          <label>
            Public key (Ed25519)
            <input data-testid="audit-key" readOnly value={key.public_key} onFocus={(e) => e.currentTarget.select()} />
          </label>
          <button data-testid="audit-key-copy" onClick={() => void copy(key.public_key)}>
            Copy key
          </button>
          {copied && <p class="sub">{copied}</p>}
        </>
      ) : (
        <p>{keyError ?? 'Reading the key…'}</p>
      )}
      {summary?.ok && (
        <p class="sub" role="status" data-testid="audit-verified">
          {summary.headline}
        </p>
      )}
      {summary && !summary.ok && (
        <div class="warn" role="alert" data-testid="audit-warning">
          <p>
            <strong>{summary.headline}</strong>
          </p>
          <ul>
            {summary.lines.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
          <p>Someone changed the audit outside the service, or an action ran that nothing allowed. Check an export kept elsewhere.</p>
        </div>
      )}
      {error && (
        <p class="warn" data-testid="audit-error">
          {error}
        </p>
      )}
      <button data-testid="audit-verify" disabled={checking} onClick={() => void verify()}>
        {checking ? 'Checking…' : 'Verify again'}
      </button>
    </section>
  );
}
