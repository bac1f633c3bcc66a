// The browser's side of the passkey ceremonies: the service's options go to
// `navigator.credentials` through the browser's own JSON parsers, and the credential's
// `toJSON()` goes back. No key material or token ever sits in the page.
import type { CeremonyStart, Enrolled, Invite, Me, PasskeyInfo } from './types';
import { call } from './http';

type Parsers = {
  parseCreationOptionsFromJSON?: (json: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions;
};

/** Why passkeys cannot work on this page, in words; null when they can. */
export function passkeyBlocker(w: { isSecureContext: boolean; location: { hostname: string; port: string; protocol: string } }, hasWebAuthn: boolean): string | null {
  const { hostname, port, protocol } = w.location;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(hostname) || hostname.startsWith('[')) {
    const local = hostname === '127.0.0.1' || hostname === '[::1]';
    return local
      ? `Passkeys need a name, not an address: open ${protocol}//localhost${port ? `:${port}` : ''}/desk/ instead.`
      : 'Passkeys need a host name, not an IP address: open the desk at its public URL.';
  }
  if (!w.isSecureContext) return 'Passkeys need a secure page: open the desk over https:// (or at http://localhost).';
  if (!hasWebAuthn) return 'This browser cannot use passkeys.';
  return null;
}

function parsers(): Parsers {
  return (window.PublicKeyCredential ?? {}) as unknown as Parsers;
}

function asJson(credential: Credential | null): unknown {
  const key = credential as (Credential & { toJSON?: () => unknown }) | null;
  if (!key?.toJSON) throw { code: 'local', message: 'The browser gave no passkey.' };
  return key.toJSON();
}

/** Creates a passkey from a started registration; the credential's JSON. */
async function create(start: CeremonyStart): Promise<unknown> {
  const parse = parsers().parseCreationOptionsFromJSON;
  if (!parse) throw { code: 'local', message: 'This browser cannot read passkey options (it is too old).' };
  return asJson(await navigator.credentials.create({ publicKey: parse(start.publicKey) }));
}

/** Asks for an assertion for a started sign-in (or step-up); the credential's JSON. */
export async function assert(start: CeremonyStart): Promise<unknown> {
  const parse = parsers().parseRequestOptionsFromJSON;
  if (!parse) throw { code: 'local', message: 'This browser cannot read passkey options (it is too old).' };
  return asJson(await navigator.credentials.get({ publicKey: parse(start.publicKey) }));
}

/** Enrols a passkey with an invite's code (which also signs in) or, signed in, adds one. */
export async function enrol(invite: string | null, label: string): Promise<Enrolled> {
  const start = await call<CeremonyStart>('POST', '/v1/passkeys/register/start', invite ? { invite } : {});
  const credential = await create(start);
  return call<Enrolled>('POST', '/v1/passkeys/register/finish', { ceremony: start.ceremony, credential, label });
}

export async function signIn(): Promise<Me> {
  const start = await call<CeremonyStart>('POST', '/v1/session/start', {});
  const credential = await assert(start);
  return call<Me>('POST', '/v1/session/finish', { ceremony: start.ceremony, credential });
}

export const signOut = () => call<null>('POST', '/v1/session/end', {});
export const passkeyList = () => call<PasskeyInfo[]>('GET', '/v1/passkeys');
export const passkeyRemove = (id: string) => call<null>('DELETE', `/v1/passkeys/${encodeURIComponent(id)}`);
export const inviteMake = (person: string | null, validFor: string) =>
  call<Invite>('POST', '/v1/invites', { ...(person ? { person } : {}), for: validFor });

/** The invite's code in an enrolment link (`/desk/enrol#<code>`); null elsewhere. */
export function inviteCode(path: string, hash: string): string | null {
  if (!/\/enrol\/?$/.test(path)) return null;
  const code = hash.replace(/^#/, '').trim();
  return /^[0-9a-f]{16,128}$/.test(code) ? code : null;
}
