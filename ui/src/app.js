import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useEffect, useState } from 'preact/hooks';
import { api, inWindow } from './api';
import { inviteCode } from './passkeys';
import { closeKey, linkBanner } from './banner';
import { EMPTY_DESK, focusFromHash, signedIn } from './logic';
import { Campaigns } from './views/Campaigns';
import { Grants } from './views/Grants';
import { History } from './views/History';
import { HeldRuns } from './views/HeldRuns';
import { Insights } from './views/Insights';
import { Pending } from './views/Pending';
import { Settings } from './views/Settings';
import { Enrol, SignIn } from './views/SignIn';
/** Until the settings answered (the desk's defaults). */
const DEFAULT_DENY_REASONS = ['use the staging environment', 'out of scope', 'ask me first'];
export function App() {
    const [tab, setTab] = useState('pending');
    const [desk, setDesk] = useState(EMPTY_DESK);
    const [focus, setFocus] = useState(() => focusFromHash(window.location.hash));
    const [ipcError, setIpcError] = useState(null);
    const [settings, setSettings] = useState(null);
    // A browser without a session signs in first; an enrolment link registers a passkey.
    const [signedOut, setSignedOut] = useState(false);
    const [invite] = useState(() => (inWindow ? null : inviteCode(window.location.pathname, window.location.hash)));
    useEffect(() => {
        api
            .settings()
            .then(setSettings)
            .catch(() => setSettings(null));
    }, [desk.me?.name]);
    // Esc (when nothing else took it) and Ctrl+W close the window; the desk stays in the tray.
    useEffect(() => {
        const onKey = (event) => {
            if (event.defaultPrevented)
                return;
            const target = event.target;
            const typing = !!target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
            if (closeKey(event.key, event.ctrlKey || event.metaKey, typing)) {
                event.preventDefault();
                void api.closeWindow();
            }
        };
        window.addEventListener('keydown', onKey);
        return () => window.removeEventListener('keydown', onKey);
    }, []);
    useEffect(() => {
        let unlisten;
        let gone = false;
        void api
            .onDesk((event) => {
            if (event.type === 'state')
                setDesk(event.snapshot);
            else if (event.type === 'signed_out')
                setSignedOut(true);
            else {
                setTab('pending');
                setFocus(event.approval_id);
            }
        })
            .then((stop) => (gone ? stop() : (unlisten = stop)))
            .catch((err) => setIpcError(`cannot follow the desk: ${String(err)}`));
        api
            .snapshot()
            .then(setDesk)
            .catch((err) => {
            if (err.code === 'signed_out')
                setSignedOut(true);
            else
                setIpcError(`cannot read the desk: ${err.message ?? String(err)}`);
        });
        return () => {
            gone = true;
            unlisten?.();
        };
    }, []);
    if (invite) {
        return (_jsxs("div", { class: "shell", children: [_jsx("header", { class: "top", children: _jsx("h1", { children: "Assent" }) }), _jsx("main", { children: _jsx(Enrol, { code: invite, onEnrolled: () => window.location.replace(new URL('./', window.location.href).href) }) })] }));
    }
    if (signedOut) {
        return (_jsxs("div", { class: "shell", children: [_jsx("header", { class: "top", children: _jsx("h1", { children: "Assent" }) }), _jsx("main", { children: _jsx(SignIn, { onSignedIn: () => window.location.reload() }) })] }));
    }
    const link = desk.link;
    const banner = linkBanner(link, settings?.connected_url ?? null);
    const activeGrants = desk.grants.filter((g) => g.status === 'active').length;
    const tabs = [
        ['pending', `Pending (${desk.pending.length})`],
        ['grants', `Grants (${activeGrants})`],
        ['history', 'History'],
        ['insights', 'Insights'],
        ['campaigns', 'Campaigns'],
        ['settings', 'Settings'],
    ];
    return (_jsxs("div", { class: "shell", children: [_jsxs("header", { class: "top", children: [_jsx("h1", { children: "Assent" }), _jsx("nav", { children: tabs.map(([id, label]) => (_jsx("button", { "data-testid": `tab-${id}`, class: tab === id ? 'tab on' : 'tab', onClick: () => setTab(id), children: label }, id))) }), _jsx("span", { "data-testid": "me", class: "me", title: signedIn(desk.me), children: signedIn(desk.me) }), _jsx("span", { "data-testid": "link", class: `link ${link.state}`, children: link.state === 'connected' ? 'connected' : link.state === 'connecting' ? 'connecting…' : 'not connected' }), desk.paused && _jsx("span", { class: "paused", children: "paused" })] }), banner && (_jsxs("div", { class: "banner", role: "alert", "data-testid": "link-banner", children: [_jsx("span", { "data-testid": "link-banner-text", children: banner.text }), _jsx("button", { type: "button", "data-testid": "retry-now", onClick: () => void api.retryService(), children: "Retry now" }), banner.details && (_jsxs("details", { children: [_jsx("summary", { children: "Details" }), _jsx("code", { "data-testid": "link-banner-details", children: banner.details })] }))] })), _jsxs("main", { children: [ipcError && (_jsx("p", { class: "error", "data-testid": "ipc-error", children: ipcError })), tab === 'pending' && _jsx(HeldRuns, { runs: desk.held_runs, pending: desk.pending }), tab === 'pending' && (_jsx(Pending, { pending: desk.pending, me: desk.me, focus: focus, onFocused: () => setFocus(null), denyReasons: settings?.deny_reasons ?? DEFAULT_DENY_REASONS, grants: desk.grants, online: link.state === 'connected' })), tab === 'grants' && _jsx(Grants, { grants: desk.grants }), tab === 'history' && _jsx(History, {}), tab === 'insights' && _jsx(Insights, { pending: desk.pending, link: desk.link }), tab === 'campaigns' && _jsx(Campaigns, { pendingCount: desk.pending.length }), tab === 'settings' && _jsx(Settings, { paused: desk.paused, me: desk.me, onSaved: setSettings, onSignedOut: () => setSignedOut(true) })] })] }));
}
