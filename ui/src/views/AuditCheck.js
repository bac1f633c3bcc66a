import { jsx as _jsx, jsxs as _jsxs, Fragment as _Fragment } from "preact/jsx-runtime";
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { auditSummary, fingerprint } from '../settings';
const said = (err) => err.message ?? String(err);
/** Settings' audit section: the key that signs the chain's checkpoints (to copy and keep
 * apart from the service), and the service's check of the chain, run when Settings opens. */
export function AuditCheck() {
    const [key, setKey] = useState(null);
    const [keyError, setKeyError] = useState(null);
    const [result, setResult] = useState(null);
    const [checking, setChecking] = useState(false);
    const [error, setError] = useState(null);
    const [copied, setCopied] = useState(null);
    const verify = async () => {
        setChecking(true);
        setError(null);
        try {
            setResult(await api.auditVerify());
        }
        catch (err) {
            setResult(null);
            setError(`Cannot check the audit: ${said(err)}`);
        }
        finally {
            setChecking(false);
        }
    };
    useEffect(() => {
        api
            .auditKey()
            .then(setKey)
            .catch((err) => setKeyError(`Cannot read the audit key: ${said(err)}`));
        void verify();
    }, []);
    const copy = async (text) => {
        try {
            await navigator.clipboard.writeText(text);
            setCopied('Copied.');
        }
        catch {
            setCopied('Select the key and copy it (Ctrl+C): this window may not write the clipboard.');
        }
    };
    const summary = result ? auditSummary(result.report) : null;
    return (_jsxs("section", { "data-testid": "audit", children: [_jsx("h2", { children: "Audit" }), _jsxs("p", { class: "sub", children: ["Every decision is a link of a hash chain, and its head is signed with this key. Keep the key somewhere of your own to check an export away from the service: ", _jsx("code", { children: "assent audit verify --from FILE --key KEY" })] }), key ? (_jsxs(_Fragment, { children: [_jsxs("p", { children: ["Fingerprint ", _jsx("code", { "data-testid": "audit-fingerprint", children: fingerprint(key.key_id) })] }), _jsxs("label", { children: ["Public key (Ed25519)", _jsx("input", { "data-testid": "audit-key", readOnly: true, value: key.public_key, onFocus: (e) => e.currentTarget.select() })] }), _jsx("button", { "data-testid": "audit-key-copy", onClick: () => void copy(key.public_key), children: "Copy key" }), copied && _jsx("p", { class: "sub", children: copied })] })) : (_jsx("p", { children: keyError ?? 'Reading the key…' })), summary?.ok && (_jsx("p", { class: "sub", role: "status", "data-testid": "audit-verified", children: summary.headline })), summary && !summary.ok && (_jsxs("div", { class: "warn", role: "alert", "data-testid": "audit-warning", children: [_jsx("p", { children: _jsx("strong", { children: summary.headline }) }), _jsx("ul", { children: summary.lines.map((line, i) => (_jsx("li", { children: line }, i))) }), _jsx("p", { children: "Someone changed the audit outside the service, or an action ran that nothing allowed. Check an export kept elsewhere." })] })), error && (_jsx("p", { class: "warn", "data-testid": "audit-error", children: error })), _jsx("button", { "data-testid": "audit-verify", disabled: checking, onClick: () => void verify(), children: checking ? 'Checking…' : 'Verify again' })] }));
}
