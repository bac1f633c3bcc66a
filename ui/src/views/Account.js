import { jsx as _jsx, jsxs as _jsxs, Fragment as _Fragment } from "preact/jsx-runtime";
import { useEffect, useState } from 'preact/hooks';
import { enrol, inviteMake, passkeyList, passkeyRemove, signOut } from '../passkeys';
const when = (at) => new Date(at).toLocaleString();
/** The browser's own settings: this person's passkeys, enrolment links, signing out. */
export function Account({ me, onSignedOut }) {
    const [keys, setKeys] = useState(null);
    const [invite, setInvite] = useState(null);
    const [person, setPerson] = useState('');
    const [validFor, setValidFor] = useState('15m');
    const [message, setMessage] = useState(null);
    const fail = (err) => setMessage(err.message ?? String(err));
    const reload = () => passkeyList().then(setKeys).catch(fail);
    useEffect(() => void reload(), []);
    return (_jsxs(_Fragment, { children: [_jsxs("section", { "data-testid": "passkeys", children: [_jsx("h2", { children: "Passkeys" }), keys === null ? (_jsx("p", { role: "status", children: "Loading\u2026" })) : (_jsx("ul", { class: "passkeys", children: keys.map((key) => (_jsxs("li", { "data-testid": "passkey", children: [_jsx("strong", { children: key.label }), " \u00B7 added ", when(key.created_at), key.last_used_at ? ` · last used ${when(key.last_used_at)}` : '', ' ', _jsx("button", { type: "button", "data-testid": "passkey-remove", onClick: () => {
                                        const last = keys.length === 1 ? ' It is your last one: you will be signed out everywhere.' : '';
                                        if (!window.confirm(`Remove the passkey “${key.label}”?${last}`))
                                            return;
                                        passkeyRemove(key.id)
                                            .then(() => (keys.length === 1 ? onSignedOut() : reload()))
                                            .catch(fail);
                                    }, children: "Remove" })] }, key.id))) })), _jsx("button", { type: "button", "data-testid": "passkey-add", onClick: () => enrol(null, 'another device')
                            .then(() => reload())
                            .catch(fail), children: "Add a passkey on this device" })] }), _jsxs("section", { "data-testid": "invites", children: [_jsx("h2", { children: "Enrolment link" }), _jsx("p", { class: "sub", children: "A link that registers one passkey, once, for a short time: open it on your phone, or send it to a teammate (inviting someone else needs the platform admin role)." }), _jsxs("form", { class: "invite", onSubmit: (event) => {
                            event.preventDefault();
                            inviteMake(person.trim() || null, validFor)
                                .then(setInvite)
                                .catch(fail);
                        }, children: [_jsxs("label", { children: ["For", _jsx("input", { "data-testid": "invite-person", value: person, placeholder: me?.name ?? 'me', onInput: (e) => setPerson(e.currentTarget.value) })] }), _jsxs("label", { children: ["Works for", _jsxs("select", { "data-testid": "invite-for", value: validFor, onChange: (e) => setValidFor(e.currentTarget.value), children: [_jsx("option", { value: "15m", children: "15 minutes" }), _jsx("option", { value: "1h", children: "1 hour" }), _jsx("option", { value: "1d", children: "1 day" })] })] }), _jsx("button", { type: "submit", "data-testid": "invite-make", children: "Make a link" })] }), invite && (_jsxs("p", { "data-testid": "invite-link", children: ["For ", invite.person, ", until ", when(invite.expires_at), ": ", _jsx("code", { children: invite.link })] }))] }), _jsxs("section", { children: [_jsx("h2", { children: "This browser" }), _jsx("button", { type: "button", "data-testid": "sign-out", onClick: () => signOut()
                            .then(onSignedOut)
                            .catch(fail), children: "Sign out" })] }), message && (_jsx("p", { class: "error", role: "alert", "data-testid": "account-message", children: message }))] }));
}
