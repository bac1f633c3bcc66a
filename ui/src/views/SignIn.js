import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useState } from 'preact/hooks';
import { enrol, passkeyBlocker, signIn } from '../passkeys';
const blocker = () => passkeyBlocker(window, typeof window.PublicKeyCredential === 'function');
function message(err) {
    const error = err;
    // The browser's own refusals (the person cancelled, no passkey for this desk…).
    if (error.name === 'NotAllowedError')
        return 'No passkey was used (cancelled, or none is registered for this desk here).';
    if (error.name === 'InvalidStateError')
        return 'This passkey is registered here already.';
    return error.message ?? String(err);
}
/** The browser's first screen when no session is open: sign in with a passkey. */
export function SignIn({ onSignedIn }) {
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState(null);
    const blocked = blocker();
    const go = async () => {
        setBusy(true);
        setError(null);
        try {
            await signIn();
            onSignedIn();
        }
        catch (err) {
            setError(message(err));
        }
        finally {
            setBusy(false);
        }
    };
    return (_jsxs("section", { class: "sign-in", "data-testid": "sign-in", children: [_jsx("h2", { children: "Sign in to Assent" }), _jsx("p", { children: "Approve what your agents ask, from this browser. Use the passkey you registered for this desk." }), blocked ? (_jsx("p", { class: "warn", "data-testid": "passkey-blocked", children: blocked })) : (_jsx("button", { type: "button", class: "primary", "data-testid": "sign-in-passkey", disabled: busy, onClick: () => void go(), children: busy ? 'Waiting for your passkey…' : 'Sign in with a passkey' })), error && (_jsx("p", { class: "error", role: "alert", "data-testid": "sign-in-error", children: error })), _jsxs("p", { class: "sub", children: ["No passkey yet? Ask for a link: ", _jsx("code", { children: "assent people invite YOUR-NAME" }), " on the machine running Assent, or from a signed-in desk's Settings."] })] }));
}
/** An enrolment link (`/desk/enrol#code`): register a passkey, which also signs in. */
export function Enrol({ code, onEnrolled }) {
    const [label, setLabel] = useState(() => (/Mobi|Android|iPhone/.test(navigator.userAgent) ? 'phone' : 'this browser'));
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState(null);
    const blocked = blocker();
    const go = async () => {
        setBusy(true);
        setError(null);
        try {
            await enrol(code, label);
            onEnrolled();
        }
        catch (err) {
            setError(message(err));
        }
        finally {
            setBusy(false);
        }
    };
    return (_jsxs("section", { class: "sign-in", "data-testid": "enrol", children: [_jsx("h2", { children: "Register a passkey" }), _jsx("p", { children: "This link lets you register one passkey for the Assent desk, once. Your device will ask you to confirm it is you." }), blocked ? (_jsx("p", { class: "warn", "data-testid": "passkey-blocked", children: blocked })) : (_jsxs("form", { onSubmit: (event) => {
                    event.preventDefault();
                    void go();
                }, children: [_jsxs("label", { children: ["Name this passkey", ' ', _jsx("input", { "data-testid": "enrol-label", value: label, maxLength: 40, onInput: (e) => setLabel(e.target.value) })] }), _jsx("button", { type: "submit", class: "primary", "data-testid": "enrol-passkey", disabled: busy, children: busy ? 'Waiting for your device…' : 'Register a passkey' })] })), error && (_jsx("p", { class: "error", role: "alert", "data-testid": "enrol-error", children: error }))] }));
}
