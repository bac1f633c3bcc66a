import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { signedIn } from '../desk';
import { envOverride, pauseWords, reasonLines, savedWords } from '../settings';
import type { CommandError, Me, SettingsView } from '../types';
import { rolesWords } from '../words';
import { Account } from './Account';
import { AuditCheck } from './AuditCheck';

/** `me`: who the desk signs in as now (live); the settings' own answer until it arrives. */
export function Settings({
  paused,
  me,
  onSaved,
  onSignedOut,
}: {
  paused: string | null;
  me: Me | null;
  onSaved: (view: SettingsView) => void;
  onSignedOut: () => void;
}) {
  const [view, setView] = useState<SettingsView | null>(null);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [reasons, setReasons] = useState('');
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    api
      .settings()
      .then((v) => {
        setView(v);
        setUrl(v.service_url);
        setReasons(v.deny_reasons.join('\n'));
      })
      .catch((err: unknown) => setMessage(`Cannot read the settings: ${(err as CommandError).message ?? String(err)}`));
  }, []);
  if (!view) return <p role="status">{message ?? 'Loading…'}</p>;

  const overridden = envOverride(view.env_overrides);
  /** `service`: the URL and token typed above, only from "Save and connect"; every other save
   * keeps the saved ones, so a half-typed URL is not connected to by ticking a box. */
  const save = async (patch: Partial<SettingsView>, service: { url: string; token: string | null } | null = null, denyReasons?: string[]) => {
    const next = { ...view, ...patch };
    // The choice shows at once and stays while it is saved (a desk update re-rendering this
    // view meanwhile would otherwise put a just-ticked box back); a failed save puts it back.
    setView(next);
    try {
      const saved = await api.saveSettings({
        service_url: service ? service.url : view.service_url,
        token: service ? service.token : null,
        notifications: next.notifications,
        autostart: next.autostart,
        ...(denyReasons ? { deny_reasons: denyReasons } : {}),
      });
      setView(saved);
      if (service) setToken('');
      if (denyReasons) setReasons(saved.deny_reasons.join('\n'));
      onSaved(saved);
      setMessage(savedWords(saved.autostart_error, overridden));
    } catch (err) {
      setView(view);
      setMessage((err as CommandError).message);
    }
  };
  const who = me ?? view.me;
  const browser = view.shell === 'browser';

  return (
    <div class="settings">
      <section>
        <h2>Who I am</h2>
        <p data-testid="settings-me">{signedIn(who)}</p>
        {who && who.kind === 'person' && (
          <ul class="roles" data-testid="settings-roles">
            {who.roles.map((role) => (
              <li key={role} data-role={role}>
                {rolesWords([role])}
              </li>
            ))}
          </ul>
        )}
        <p class="sub">
          The service decides what you may approve from these roles. Roles are granted by an admin:{' '}
          <code>assent people roles {who?.name ?? 'NAME'} --add ROLE</code>
        </p>
      </section>
      {browser && <Account me={who} onSignedOut={onSignedOut} />}
      {!browser && (
      <section>
        <h2>Service</h2>
        <p>
          Connected to <code data-testid="connected-url">{view.connected_url}</code>
          {view.embedded ? ' (embedded in this app)' : ''}.
        </p>
        {overridden && (
          <p class="warn" data-testid="env-override">
            {overridden}
          </p>
        )}
        {view.service_warning && (
          <p class="warn" role="alert" data-testid="service-warning">
            {view.service_warning}
          </p>
        )}
        <label>
          Service URL (empty: embedded service)
          <input data-testid="service-url" value={url} placeholder="http://127.0.0.1:7391" onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label>
          Approver token {view.has_token ? '(stored)' : ''}
          <input data-testid="token" type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <button data-testid="save-service" onClick={() => void save({}, { url, token: token === '' ? null : token })}>
          Save and connect
        </button>
        <p class="sub">A new URL or token takes effect at once. An embedded service keeps running until Quit.</p>
      </section>
      )}
      {!browser && (
      <section>
        <h2>Notifications</h2>
        <label class="check">
          <input type="checkbox" data-testid="notifications" checked={view.notifications} onChange={(e) => void save({ notifications: e.currentTarget.checked })} />
          Show a notification for each prompt
        </label>
        <p>
          Pause: {pauseWords(paused, Date.now())}
        </p>
        <div class="buttons">
          <button onClick={() => void api.pause('half_hour')}>30 min</button>
          <button onClick={() => void api.pause('hour')}>1 hour</button>
          <button onClick={() => void api.pause('until_resumed')}>Until resumed</button>
          <button onClick={() => void api.pause('resume')}>Resume</button>
        </div>
      </section>
      )}
      <section>
        <h2>Deny reasons</h2>
        <label>
          Offered in one tap under each prompt, one per line (the agent reads them)
          <textarea data-testid="deny-reasons-edit" rows={4} value={reasons} onInput={(e) => setReasons(e.currentTarget.value)} />
        </label>
        <button data-testid="save-deny-reasons" onClick={() => void save({}, null, reasonLines(reasons))}>
          Save reasons
        </button>
      </section>
      {!browser && (
      <section>
        <h2>Start at login</h2>
        <label class="check">
          <input type="checkbox" data-testid="autostart" checked={view.autostart} onChange={(e) => void save({ autostart: e.currentTarget.checked })} />
          Start Assent in the tray when I log in
        </label>
      </section>
      )}
      <AuditCheck />
      {message && <p data-testid="settings-message">{message}</p>}
    </div>
  );
}
