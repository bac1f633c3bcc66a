import { call } from './http';
/** Why passkeys cannot work on this page, in words; null when they can. */
export function passkeyBlocker(w, hasWebAuthn) {
    const { hostname, port, protocol } = w.location;
    if (/^\d+\.\d+\.\d+\.\d+$/.test(hostname) || hostname.startsWith('[')) {
        const local = hostname === '127.0.0.1' || hostname === '[::1]';
        return local
            ? `Passkeys need a name, not an address: open ${protocol}//localhost${port ? `:${port}` : ''}/desk/ instead.`
            : 'Passkeys need a host name, not an IP address: open the desk at its public URL.';
    }
    if (!w.isSecureContext)
        return 'Passkeys need a secure page: open the desk over https:// (or at http://localhost).';
    if (!hasWebAuthn)
        return 'This browser cannot use passkeys.';
    return null;
}
function parsers() {
    return (window.PublicKeyCredential ?? {});
}
function asJson(credential) {
    const key = credential;
    if (!key?.toJSON)
        throw { code: 'local', message: 'The browser gave no passkey.' };
    return key.toJSON();
}
/** Creates a passkey from a started registration; the credential's JSON. */
async function create(start) {
    const parse = parsers().parseCreationOptionsFromJSON;
    if (!parse)
        throw { code: 'local', message: 'This browser cannot read passkey options (it is too old).' };
    return asJson(await navigator.credentials.create({ publicKey: parse(start.publicKey) }));
}
/** Asks for an assertion for a started sign-in (or step-up); the credential's JSON. */
export async function assert(start) {
    const parse = parsers().parseRequestOptionsFromJSON;
    if (!parse)
        throw { code: 'local', message: 'This browser cannot read passkey options (it is too old).' };
    return asJson(await navigator.credentials.get({ publicKey: parse(start.publicKey) }));
}
/** Enrols a passkey with an invite's code (which also signs in) or, signed in, adds one. */
export async function enrol(invite, label) {
    const start = await call('POST', '/v1/passkeys/register/start', invite ? { invite } : {});
    const credential = await create(start);
    return call('POST', '/v1/passkeys/register/finish', { ceremony: start.ceremony, credential, label });
}
export async function signIn() {
    const start = await call('POST', '/v1/session/start', {});
    const credential = await assert(start);
    return call('POST', '/v1/session/finish', { ceremony: start.ceremony, credential });
}
export const signOut = () => call('POST', '/v1/session/end', {});
export const passkeyList = () => call('GET', '/v1/passkeys');
export const passkeyRemove = (id) => call('DELETE', `/v1/passkeys/${encodeURIComponent(id)}`);
export const inviteMake = (person, validFor) => call('POST', '/v1/invites', { ...(person ? { person } : {}), for: validFor });
/** The invite's code in an enrolment link (`/desk/enrol#<code>`); null elsewhere. */
export function inviteCode(path, hash) {
    if (!/\/enrol\/?$/.test(path))
        return null;
    const code = hash.replace(/^#/, '').trim();
    return /^[0-9a-f]{16,128}$/.test(code) ? code : null;
}
