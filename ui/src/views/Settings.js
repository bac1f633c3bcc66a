import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { signedIn } from '../logic';
import { envOverride, reasonLines } from '../settings';
import { rolesWords } from '../words';
import { Account } from './Account';
import { AuditCheck } from './AuditCheck';
/** `me`: who the desk signs in as now (live); the settings' own answer until it arrives. */
export function Settings({ paused, me, onSaved, onSignedOut, }) {
    const [view, setView] = useState(null);
    const [url, setUrl] = useState('');
    const [token, setToken] = useState('');
    const [reasons, setReasons] = useState('');
    const [message, setMessage] = useState(null);
    useEffect(() => {
        api
            .settings()
            .then((v) => {
            setView(v);
            setUrl(v.service_url);
            setReasons(v.deny_reasons.join('\n'));
        })
            .catch((err) => setMessage(`Cannot read the settings: ${err.message ?? String(err)}`));
    }, []);
    if (!view)
        return _jsx("p", { role: "status", children: message ?? 'Loading…' });
    const overridden = envOverride(view.env_overrides);
    const save = async (patch, newToken = null, denyReasons) => {
        const next = { ...view, ...patch };
        try {
            const saved = await api.saveSettings({
                service_url: url,
                token: newToken,
                notifications: next.notifications,
                autostart: next.autostart,
                ...(denyReasons ? { deny_reasons: denyReasons } : {}),
            });
            setView(saved);
            setToken('');
            setReasons(saved.deny_reasons.join('\n'));
            onSaved(saved);
            setMessage(overridden ? `Saved. ${overridden}` : 'Saved.');
        }
        catch (err) {
            setMessage(err.message);
        }
    };
    const who = me ?? view.me;
    const browser = view.shell === 'browser';
    return (_jsxs("div", { class: "settings", children: [_jsxs("section", { children: [_jsx("h2", { children: "Who I am" }), _jsx("p", { "data-testid": "settings-me", children: signedIn(who) }), who && who.kind === 'person' && (_jsx("ul", { class: "roles", "data-testid": "settings-roles", children: who.roles.map((role) => (_jsx("li", { "data-role": role, children: rolesWords([role]) }, role))) })), _jsxs("p", { class: "sub", children: ["The service decides what you may approve from these roles. Roles are granted by an admin:", ' ', _jsxs("code", { children: ["assent people roles ", who?.name ?? 'NAME', " --add ROLE"] })] })] }), browser && _jsx(Account, { me: who, onSignedOut: onSignedOut }), !browser && (_jsxs("section", { children: [_jsx("h2", { children: "Service" }), _jsxs("p", { children: ["Connected to ", _jsx("code", { "data-testid": "connected-url", children: view.connected_url }), view.embedded ? ' (embedded in this app)' : '', "."] }), overridden && (_jsx("p", { class: "warn", "data-testid": "env-override", children: overridden })), view.service_warning && (_jsx("p", { class: "warn", role: "alert", "data-testid": "service-warning", children: view.service_warning })), _jsxs("label", { children: ["Service URL (empty: embedded service)", _jsx("input", { "data-testid": "service-url", value: url, placeholder: "http://127.0.0.1:7391", onInput: (e) => setUrl(e.currentTarget.value) })] }), _jsxs("label", { children: ["Approver token ", view.has_token ? '(stored)' : '', _jsx("input", { "data-testid": "token", type: "password", autocomplete: "off", value: token, onInput: (e) => setToken(e.currentTarget.value) })] }), _jsx("button", { "data-testid": "save-service", onClick: () => void save({}, token === '' ? null : token), children: "Save and connect" }), _jsx("p", { class: "sub", children: "A new URL or token takes effect at once. An embedded service keeps running until Quit." })] })), !browser && (_jsxs("section", { children: [_jsx("h2", { children: "Notifications" }), _jsxs("label", { class: "check", children: [_jsx("input", { type: "checkbox", "data-testid": "notifications", checked: view.notifications, onChange: (e) => void save({ notifications: e.currentTarget.checked }) }), "Show a notification for each prompt"] }), _jsxs("p", { children: ["Pause: ", paused ? (paused === 'until_resumed' ? 'until resumed' : paused === 'off' ? 'notifications off' : `until ${new Date(paused).toLocaleTimeString()}`) : 'not paused'] }), _jsxs("div", { class: "buttons", children: [_jsx("button", { onClick: () => void api.pause('half_hour'), children: "30 min" }), _jsx("button", { onClick: () => void api.pause('hour'), children: "1 hour" }), _jsx("button", { onClick: () => void api.pause('until_resumed'), children: "Until resumed" }), _jsx("button", { onClick: () => void api.pause('resume'), children: "Resume" })] })] })), _jsxs("section", { children: [_jsx("h2", { children: "Deny reasons" }), _jsxs("label", { children: ["Offered in one tap under each prompt, one per line (the agent reads them)", _jsx("textarea", { "data-testid": "deny-reasons-edit", rows: 4, value: reasons, onInput: (e) => setReasons(e.currentTarget.value) })] }), _jsx("button", { "data-testid": "save-deny-reasons", onClick: () => void save({}, null, reasonLines(reasons)), children: "Save reasons" })] }), !browser && (_jsxs("section", { children: [_jsx("h2", { children: "Start at login" }), _jsxs("label", { class: "check", children: [_jsx("input", { type: "checkbox", "data-testid": "autostart", checked: view.autostart, onChange: (e) => void save({ autostart: e.currentTarget.checked }) }), "Start Assent in the tray when I log in"] })] })), _jsx(AuditCheck, {}), message && _jsx("p", { "data-testid": "settings-message", children: message })] }));
}
