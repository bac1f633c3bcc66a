import { useEffect, useState } from 'preact/hooks';
import { enrol, inviteMake, passkeyList, passkeyRemove, signOut } from '../passkeys';
import { pushBlocker, pushCurrent, pushSubscribe, pushUnsubscribe } from '../push';
import type { CommandError, Invite, Me, PasskeyInfo } from '../types';
import { absolute } from '../words';

const when = absolute;

/** The browser's own settings: this person's passkeys, enrolment links, signing out. */
export function Account({ me, onSignedOut }: { me: Me | null; onSignedOut: () => void }) {
  const [keys, setKeys] = useState<PasskeyInfo[] | null>(null);
  const [invite, setInvite] = useState<Invite | null>(null);
  const [person, setPerson] = useState('');
  const [validFor, setValidFor] = useState('15m');
  const [message, setMessage] = useState<string | null>(null);
  const fail = (err: unknown) => setMessage((err as CommandError).message ?? String(err));
  const reload = () => passkeyList().then(setKeys).catch(fail);
  useEffect(() => void reload(), []);

  return (
    <>
      <section data-testid="passkeys">
        <h2>Passkeys</h2>
        {keys === null ? (
          <p role="status">Loading…</p>
        ) : (
          <ul class="passkeys">
            {keys.map((key) => (
              <li key={key.id} data-testid="passkey">
                <strong>{key.label}</strong> · added {when(key.created_at)}
                {key.last_used_at ? ` · last used ${when(key.last_used_at)}` : ''}{' '}
                <button
                  type="button"
                  data-testid="passkey-remove"
                  onClick={() => {
                    const last = keys.length === 1 ? ' It is your last one: you will be signed out everywhere.' : '';
                    if (!window.confirm(`Remove the passkey “${key.label}”?${last}`)) return;
                    passkeyRemove(key.id)
                      .then(() => (keys.length === 1 ? onSignedOut() : reload()))
                      .catch(fail);
                  }}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
        <button
          type="button"
          data-testid="passkey-add"
          onClick={() =>
            enrol(null, 'another device')
              .then(() => reload())
              .catch(fail)
          }
        >
          Add a passkey on this device
        </button>
      </section>
      <section data-testid="invites">
        <h2>Enrolment link</h2>
        <p class="sub">A link that registers one passkey, once, for a short time: open it on your phone, or send it to a teammate (inviting someone else needs the platform admin role).</p>
        <form
          class="invite"
          onSubmit={(event) => {
            event.preventDefault();
            inviteMake(person.trim() || null, validFor)
              .then(setInvite)
              .catch(fail);
          }}
        >
          <label>
            For
            <input data-testid="invite-person" value={person} placeholder={me?.name ?? 'me'} onInput={(e) => setPerson(e.currentTarget.value)} />
          </label>
          <label>
            Works for
            <select data-testid="invite-for" value={validFor} onChange={(e) => setValidFor(e.currentTarget.value)}>
              <option value="15m">15 minutes</option>
              <option value="1h">1 hour</option>
              <option value="1d">1 day</option>
            </select>
          </label>
          <button type="submit" data-testid="invite-make">
            Make a link
          </button>
        </form>
        {invite && (
          <p data-testid="invite-link">
            For {invite.person}, until {when(invite.expires_at)}: <code>{invite.link}</code>
          </p>
        )}
      </section>
      <Notify onError={fail} />
      <section>
        <h2>This browser</h2>
        <button
          type="button"
          data-testid="sign-out"
          onClick={() =>
            signOut()
              .then(onSignedOut)
              .catch(fail)
          }
        >
          Sign out
        </button>
      </section>
      {message && (
        <p class="error" role="alert" data-testid="account-message">
          {message}
        </p>
      )}
    </>
  );
}

/** "Notify me on this device": Web Push for the prompts this person may decide. */
function Notify({ onError }: { onError: (err: unknown) => void }) {
  const blocker = pushBlocker(window, {
    serviceWorker: 'serviceWorker' in navigator,
    pushManager: 'PushManager' in window,
    notification: 'Notification' in window,
  });
  const [on, setOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (blocker) return;
    pushCurrent()
      .then((subscription) => setOn(subscription !== null))
      .catch(() => setOn(false));
  }, []);
  const act = (what: () => Promise<void>, next: boolean) => {
    setBusy(true);
    what()
      .then(() => setOn(next))
      .catch(onError)
      .finally(() => setBusy(false));
  };
  return (
    <section data-testid="notify">
      <h2>Notifications</h2>
      <p class="sub">
        A notification on this device when an agent asks something you may decide: low and medium risk can be allowed once or denied from it, anything riskier opens here. It carries the prompt&apos;s one-line summary, never a secret.
      </p>
      {blocker ? (
        <p role="status">{blocker}</p>
      ) : on ? (
        <button type="button" data-testid="notify-off" disabled={busy} onClick={() => act(pushUnsubscribe, false)}>
          Stop notifying this device
        </button>
      ) : (
        <button type="button" data-testid="notify-on" disabled={busy || on === null} onClick={() => act(pushSubscribe, true)}>
          Notify me on this device
        </button>
      )}
    </section>
  );
}
