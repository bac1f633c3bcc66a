import { useEffect, useState } from 'preact/hooks';
import { api, inWindow } from './api';
import { inviteCode } from './passkeys';
import { closeKey, linkBanner } from './banner';
import { EMPTY_DESK, focusFromHash, signedIn } from './desk';
import type { DeskSnapshot, SettingsView } from './types';
import { Campaigns } from './views/Campaigns';
import { Grants } from './views/Grants';
import { History } from './views/History';
import { HeldRuns } from './views/HeldRuns';
import { Insights } from './views/Insights';
import { Pending } from './views/Pending';
import { Settings } from './views/Settings';
import { Enrol, SignIn } from './views/SignIn';

type Tab = 'pending' | 'grants' | 'history' | 'insights' | 'campaigns' | 'settings';

/** Until the settings answered (the desk's defaults). */
const DEFAULT_DENY_REASONS = ['use the staging environment', 'out of scope', 'ask me first'];


export function App() {
  const [tab, setTab] = useState<Tab>('pending');
  const [desk, setDesk] = useState<DeskSnapshot>(EMPTY_DESK);
  const [focus, setFocus] = useState<string | null>(() => focusFromHash(window.location.hash));
  const [ipcError, setIpcError] = useState<string | null>(null);
  const [settings, setSettings] = useState<SettingsView | null>(null);
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
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
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
    let unlisten: (() => void) | undefined;
    let gone = false;
    void api
      .onDesk((event) => {
        if (event.type === 'state') setDesk(event.snapshot);
        else if (event.type === 'signed_out') setSignedOut(true);
        else {
          setTab('pending');
          setFocus(event.approval_id);
        }
      })
      .then((stop) => (gone ? stop() : (unlisten = stop)))
      .catch((err: unknown) => setIpcError(`cannot follow the desk: ${String(err)}`));
    api
      .snapshot()
      .then(setDesk)
      .catch((err: unknown) => {
        if ((err as { code?: string }).code === 'signed_out') setSignedOut(true);
        else setIpcError(`cannot read the desk: ${(err as { message?: string }).message ?? String(err)}`);
      });
    return () => {
      gone = true;
      unlisten?.();
    };
  }, []);

  if (invite) {
    return (
      <div class="shell">
        <header class="top">
          <h1>Assent</h1>
        </header>
        <main>
          <Enrol code={invite} onEnrolled={() => window.location.replace(new URL('./', window.location.href).href)} />
        </main>
      </div>
    );
  }
  if (signedOut) {
    return (
      <div class="shell">
        <header class="top">
          <h1>Assent</h1>
        </header>
        <main>
          <SignIn onSignedIn={() => window.location.reload()} />
        </main>
      </div>
    );
  }

  const link = desk.link;
  const banner = linkBanner(link, settings?.connected_url ?? null, !inWindow);
  const activeGrants = desk.grants.filter((g) => g.status === 'active').length;
  const tabs: [Tab, string][] = [
    ['pending', `Pending (${desk.pending.length})`],
    ['grants', `Grants (${activeGrants})`],
    ['history', 'History'],
    ['insights', 'Insights'],
    ['campaigns', 'Campaigns'],
    ['settings', 'Settings'],
  ];
  return (
    <div class="shell">
      <header class="top">
        <h1>Assent</h1>
        <nav>
          {tabs.map(([id, label]) => (
            <button key={id} data-testid={`tab-${id}`} class={tab === id ? 'tab on' : 'tab'} onClick={() => setTab(id)}>
              {label}
            </button>
          ))}
        </nav>
        <span data-testid="me" class="me" title={signedIn(desk.me)}>
          {signedIn(desk.me)}
        </span>
        <span data-testid="link" class={`link ${link.state}`}>
          {link.state === 'connected' ? 'connected' : link.state === 'connecting' ? 'connecting…' : 'not connected'}
        </span>
        {desk.paused && <span class="paused">paused</span>}
      </header>
      {banner && (
        <div class="banner" role="alert" data-testid="link-banner">
          <span data-testid="link-banner-text">{banner.text}</span>
          <button type="button" data-testid="retry-now" onClick={() => void api.retryService()}>
            Retry now
          </button>
          {banner.details && (
            <details>
              <summary>Details</summary>
              <code data-testid="link-banner-details">{banner.details}</code>
            </details>
          )}
        </div>
      )}
      <main>
        {ipcError && (
          <p class="error" data-testid="ipc-error">
            {ipcError}
          </p>
        )}
        {tab === 'pending' && <HeldRuns runs={desk.held_runs} pending={desk.pending} />}
        {tab === 'pending' && (
          <Pending
            pending={desk.pending}
            loaded={desk !== EMPTY_DESK && link.state === 'connected'}
            me={desk.me}
            focus={focus}
            onFocused={() => setFocus(null)}
            denyReasons={settings?.deny_reasons ?? DEFAULT_DENY_REASONS}
            grants={desk.grants}
            online={link.state === 'connected'}
            settled={desk.settled ?? []}
          />
        )}
        {tab === 'grants' && <Grants grants={desk.grants} />}
        {tab === 'history' && <History />}
        {tab === 'insights' && <Insights pending={desk.pending} link={desk.link} />}
        {tab === 'campaigns' && <Campaigns pendingCount={desk.pending.length} />}
        {tab === 'settings' && <Settings paused={desk.paused} me={desk.me} onSaved={setSettings} onSignedOut={() => setSignedOut(true)} />}
      </main>
    </div>
  );
}
