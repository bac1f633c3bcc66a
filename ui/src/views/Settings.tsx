import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { signedIn } from '../logic';
import type { CommandError, Me, SettingsView } from '../types';

/** `me`: who the desk signs in as now (live); the settings' own answer until it arrives. */
export function Settings({ paused, me }: { paused: string | null; me: Me | null }) {
  const [view, setView] = useState<SettingsView | null>(null);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    api
      .settings()
      .then((v) => {
        setView(v);
        setUrl(v.service_url);
      })
      .catch((err: unknown) => setMessage(`Cannot read the settings: ${(err as CommandError).message ?? String(err)}`));
  }, []);
  if (!view) return <p role="status">{message ?? 'Loading…'}</p>;

  const save = async (patch: Partial<SettingsView>, newToken: string | null = null) => {
    const next = { ...view, ...patch };
    try {
      const saved = await api.saveSettings({
        service_url: url,
        token: newToken,
        notifications: next.notifications,
        autostart: next.autostart,
      });
      setView(saved);
      setToken('');
      setMessage('Saved.');
    } catch (err) {
      setMessage((err as CommandError).message);
    }
  };
  const who = me ?? view.me;

  return (
    <div class="settings">
      <section>
        <h2>Who I am</h2>
        <p data-testid="settings-me">{signedIn(who)}</p>
        {who && who.kind === 'person' && (
          <ul class="roles" data-testid="settings-roles">
            {who.roles.map((role) => (
              <li key={role}>{role}</li>
            ))}
          </ul>
        )}
        <p class="sub">
          The service decides what you may approve from these roles. Roles are granted by an admin:{' '}
          <code>assent people roles {who?.name ?? 'NAME'} --add ROLE</code>
        </p>
      </section>
      <section>
        <h2>Service</h2>
        <p>
          Connected to <code data-testid="connected-url">{view.connected_url}</code>
          {view.embedded ? ' (embedded in this app)' : ''}.
        </p>
        <label>
          Service URL (empty: embedded service)
          <input data-testid="service-url" value={url} placeholder="http://127.0.0.1:7391" onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label>
          Approver token {view.has_token ? '(stored)' : ''}
          <input data-testid="token" type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <button data-testid="save-service" onClick={() => void save({}, token === '' ? null : token)}>
          Save and connect
        </button>
        <p class="sub">A new URL or token takes effect at once. An embedded service keeps running until Quit.</p>
      </section>
      <section>
        <h2>Notifications</h2>
        <label class="check">
          <input type="checkbox" data-testid="notifications" checked={view.notifications} onChange={(e) => void save({ notifications: e.currentTarget.checked })} />
          Show a notification for each prompt
        </label>
        <p>
          Pause: {paused ? (paused === 'until_resumed' ? 'until resumed' : paused === 'off' ? 'notifications off' : `until ${new Date(paused).toLocaleTimeString()}`) : 'not paused'}
        </p>
        <div class="buttons">
          <button onClick={() => void api.pause('half_hour')}>30 min</button>
          <button onClick={() => void api.pause('hour')}>1 hour</button>
          <button onClick={() => void api.pause('until_resumed')}>Until resumed</button>
          <button onClick={() => void api.pause('resume')}>Resume</button>
        </div>
      </section>
      <section>
        <h2>Start at login</h2>
        <label class="check">
          <input type="checkbox" data-testid="autostart" checked={view.autostart} onChange={(e) => void save({ autostart: e.currentTarget.checked })} />
          Start Assent in the tray when I log in
        </label>
      </section>
      {message && <p data-testid="settings-message">{message}</p>}
    </div>
  );
}
