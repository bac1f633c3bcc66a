import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { CommandError, Role, SettingsView } from '../types';

const ROLES: Role[] = ['task_author', 'repo_maintainer', 'security_reviewer', 'platform_admin'];

export function Settings({ paused }: { paused: string | null }) {
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
        roles: next.roles,
      });
      setView(saved);
      setToken('');
      setMessage('Saved.');
    } catch (err) {
      setMessage((err as CommandError).message);
    }
  };
  const toggleRole = (role: Role) =>
    save({ roles: view.roles.includes(role) ? view.roles.filter((r) => r !== role) : [...view.roles, role] });

  return (
    <div class="settings">
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
      <section>
        <h2>My roles</h2>
        <p class="sub">Escalations needing a role you do not hold can only be opened, never approved, from a notification.</p>
        {ROLES.map((role) => (
          <label class="check" key={role}>
            <input type="checkbox" checked={view.roles.includes(role)} onChange={() => void toggleRole(role)} />
            {role.replace('_', ' ')}
          </label>
        ))}
      </section>
      {message && <p data-testid="settings-message">{message}</p>}
    </div>
  );
}
