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

/** Approval `id` as the service shows it to the signed-in person: `{status, approval}`. */
async function read(id) {
  const response = await fetch(`${API}approvals/${encodeURIComponent(id)}`, { credentials: 'same-origin' });
  const approval = response.ok ? await response.json().catch(() => null) : null;
  return { status: response.status, approval };
}

/** Who settled `approval` and how, as a sentence. */
function settled(approval) {
  if (approval.status === 'expired') return 'This prompt expired before your answer.';
  const how = String(approval.status).startsWith('approved') ? 'approved' : String(approval.status);
  return approval.decided_by ? `Already ${how} by ${approval.decided_by}.` : `Already ${how}.`;
}

/** What the service answered a refused read or decision, in words. */
function refused(status, detail) {
  const code = detail && detail.error && detail.error.code;
  if (status === 401) return 'Sign in to the desk to decide.';
  if (code === 'step_up_required') return 'Confirm with your passkey in the desk.';
  return (detail && detail.error && detail.error.message) || `The service answered ${status}.`;
}

/**
 * Decides approval `id` through the session: "Allow once" as the prompt's own once-choice (the
 * expiry the policy allows, from its `quick_decisions`), "Deny" with a reason saying where.
 * Returns what to tell the person, or null when decided.
 */
async function decide(id, action) {
  try {
    const before = await read(id);
    if (!before.approval) return before.status === 404 ? 'This prompt is gone.' : refused(before.status, null);
    if (before.approval.status !== 'requested') return settled(before.approval);
    let body;
    if (action === 'allow') {
      const once = (before.approval.quick_decisions || []).find((q) => q.scope === 'once');
      if (!once) return 'This prompt cannot be allowed once: review it in the desk.';
      body = { decision: 'approve', scope: 'once', expires_in_seconds: once.expires_in_seconds };
    } else {
      body = { decision: 'deny', reason: 'denied from a notification' };
    }
    const response = await fetch(`${API}approvals/${encodeURIComponent(id)}/decision`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.ok) return null;
    const detail = await response.json().catch(() => null);
    if (response.status === 409) {
      // Decided between the read and the press: say by whom.
      const after = await read(id).catch(() => null);
      return after && after.approval ? settled(after.approval) : 'This prompt was decided meanwhile.';
    }
    return refused(response.status, detail);
  } catch (err) {
    return `Cannot reach the service: ${String(err)}`;
  }
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
