import { useState } from 'preact/hooks';
import { enrol, passkeyBlocker, signIn } from '../passkeys';
import type { CommandError } from '../types';

const blocker = () => passkeyBlocker(window, typeof window.PublicKeyCredential === 'function');

function message(err: unknown): string {
  const error = err as Partial<CommandError> & { name?: string };
  // The browser's own refusals (the person cancelled, no passkey for this desk…).
  if (error.name === 'NotAllowedError') return 'No passkey was used (cancelled, or none is registered for this desk here).';
  if (error.name === 'InvalidStateError') return 'This passkey is registered here already.';
  return error.message ?? String(err);
}

/** The browser's first screen when no session is open: sign in with a passkey. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const blocked = blocker();
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      await signIn();
      onSignedIn();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in" data-testid="sign-in">
      <h2>Sign in to Assent</h2>
      <p>Approve what your agents ask, from this browser. Use the passkey you registered for this desk.</p>
      {blocked ? (
        <p class="warn" data-testid="passkey-blocked">
          {blocked}
        </p>
      ) : (
        <button type="button" class="primary" data-testid="sign-in-passkey" disabled={busy} onClick={() => void go()}>
          {busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
        </button>
      )}
      {error && (
        <p class="error" role="alert" data-testid="sign-in-error">
          {error}
        </p>
      )}
      <p class="sub">
        No passkey yet? Ask for a link: <code>assent people invite YOUR-NAME</code> on the machine running Assent, or from a
        signed-in desk's Settings.
      </p>
    </section>
  );
}

/** An enrolment link (`/desk/enrol#code`): register a passkey, which also signs in. */
export function Enrol({ code, onEnrolled }: { code: string; onEnrolled: () => void }) {
  const [label, setLabel] = useState(() => (/Mobi|Android|iPhone/.test(navigator.userAgent) ? 'phone' : 'this browser'));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const blocked = blocker();
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      await enrol(code, label);
      onEnrolled();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="sign-in" data-testid="enrol">
      <h2>Register a passkey</h2>
      <p>This link lets you register one passkey for the Assent desk, once. Your device will ask you to confirm it is you.</p>
      {blocked ? (
        <p class="warn" data-testid="passkey-blocked">
          {blocked}
        </p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void go();
          }}
        >
          <label>
            Name this passkey{' '}
            <input data-testid="enrol-label" value={label} maxLength={40} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="primary" data-testid="enrol-passkey" disabled={busy}>
            {busy ? 'Waiting for your device…' : 'Register a passkey'}
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert" data-testid="enrol-error">
          {error}
        </p>
      )}
    </section>
  );
}
