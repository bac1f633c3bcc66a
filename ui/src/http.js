/** The service's `{error:{code,message}}` as the page's errors (401: signed out). */
export function commandError(status, body) {
    const detail = body?.error;
    const message = detail?.message ?? `the service answered ${status}`;
    if (status === 401)
        return { code: 'signed_out', message: 'Sign in with your passkey.' };
    if (status === 403 && detail?.code === 'step_up_required')
        return { code: 'step_up_required', message };
    if (status === 400 || status === 413 || status === 415 || status === 422)
        return { code: 'invalid', message };
    if (status === 403)
        return { code: 'refused', message };
    if (status === 404 || status === 409)
        return { code: 'conflict', message };
    return { code: 'unavailable', message };
}
/** One call to the service: JSON in and out, the session cookie, no token. */
export async function call(method, path, body) {
    let response;
    try {
        response = await fetch(path, {
            method,
            credentials: 'same-origin',
            headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
        });
    }
    catch (err) {
        throw { code: 'unavailable', message: `cannot reach the service: ${String(err)}` };
    }
    const text = await response.text();
    let parsed = null;
    try {
        parsed = text ? JSON.parse(text) : null;
    }
    catch {
        parsed = null;
    }
    if (!response.ok)
        throw commandError(response.status, parsed);
    return parsed;
}
