// The web desk's service worker: it shows a pushed prompt as a notification — with "Allow
// once" and "Deny" for low and medium risk (acting through the session), else only opening
// the approval — and opens the desk when a notification is pressed. A press on a prompt
// decided meanwhile says so. It caches nothing: the desk is only useful with the service
// reachable.
//
// The decision is a same-origin fetch from the worker: the browser sends the session cookie
// (SameSite=Strict: the worker's origin is the desk's own site) and an `Origin` header naming
// the desk, which is what the service asks of a signed-in change.
'use strict';

const DESK = new URL('./', self.location.href).href;
const API = new URL('../v1/', self.location.href).href;
/** How long "Allow once" holds: the grant is used by the one waiting request. */
const ONCE_SECONDS = 600;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** The push's payload `{approval_id, risk, summary, open_only}` (small, masked by the service). */
function payload(event) {
  try {
    const data = event.data ? event.data.json() : null;
    if (data && typeof data.approval_id === 'string') return data;
  } catch (_) {
    // Not JSON: shown as a plain prompt below.
  }
  return null;
}

const RISKS = ['low', 'medium', 'high', 'critical'];

/** The notification for a payload: what `showNotification` takes. */
function notification(data) {
  const summary = data && typeof data.summary === 'string' ? data.summary.slice(0, 200) : 'An agent is asking.';
  const risk = data && RISKS.includes(data.risk) ? data.risk : 'high';
  // One act from the notification only for low and medium risk, and never when the service
  // says the prompt wants more (a passkey step-up, the desk's one-act line, no "once" scope).
  const quick = (risk === 'low' || risk === 'medium') && !(data && data.open_only !== false);
  return {
    title: `Assent: ${risk} risk`,
    options: {
      body: summary,
      tag: data ? `approval-${data.approval_id}` : 'approval',
      data: data ? { approval_id: data.approval_id, risk } : {},
      requireInteraction: !quick,
      actions: quick
        ? [
            { action: 'allow', title: 'Allow once' },
            { action: 'deny', title: 'Deny' },
          ]
        : [{ action: 'open', title: 'Review in the desk' }],
    },
  };
}

self.addEventListener('push', (event) => {
  const { title, options } = notification(payload(event));
  event.waitUntil(self.registration.showNotification(title, options));
});

/** Who settled approval `id` and how, as a sentence; null when it cannot be read. */
async function settledBy(id) {
  const response = await fetch(`${API}approvals/${encodeURIComponent(id)}`, { credentials: 'same-origin' }).catch(() => null);
  if (!response || !response.ok) return null;
  const approval = await response.json().catch(() => null);
  if (!approval || approval.status === 'requested') return null;
  if (approval.status === 'expired') return 'This prompt expired before your answer.';
  const how = String(approval.status).startsWith('approved') ? 'approved' : String(approval.status);
  return approval.decided_by ? `Already ${how} by ${approval.decided_by}.` : `Already ${how}.`;
}

/** Decides approval `id` through the session; what to tell the person, or null when done. */
async function decide(id, action) {
  const body =
    action === 'allow'
      ? { decision: 'approve', scope: 'once', expires_in_seconds: ONCE_SECONDS }
      : { decision: 'deny', reason: 'denied from a notification' };
  let response;
  try {
    response = await fetch(`${API}approvals/${encodeURIComponent(id)}/decision`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    return `Cannot reach the service: ${String(err)}`;
  }
  if (response.ok) return null;
  const detail = await response.json().catch(() => null);
  const code = detail && detail.error && detail.error.code;
  if (response.status === 409 || response.status === 404) {
    return (await settledBy(id)) || 'This prompt was decided meanwhile (or has expired).';
  }
  if (response.status === 401) return 'Sign in to the desk to decide.';
  if (code === 'step_up_required') return 'Confirm with your passkey in the desk.';
  return (detail && detail.error && detail.error.message) || `The service answered ${response.status}.`;
}

async function open(id) {
  const url = id ? `${DESK}#/pending/${encodeURIComponent(id)}` : DESK;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const client of windows) {
    if (client.url.startsWith(DESK) && 'focus' in client) {
      await client.navigate(url).catch(() => null);
      return client.focus();
    }
  }
  return self.clients.openWindow(url);
}

self.addEventListener('notificationclick', (event) => {
  const id = event.notification.data && event.notification.data.approval_id;
  event.notification.close();
  if (id && (event.action === 'allow' || event.action === 'deny')) {
    event.waitUntil(
      decide(id, event.action).then((problem) =>
        problem ? self.registration.showNotification('Assent', { body: problem, tag: `approval-${id}`, data: { approval_id: id } }) : null,
      ),
    );
    return;
  }
  event.waitUntil(open(id));
});
