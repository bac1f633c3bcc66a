// The web desk's service worker: it shows a pushed prompt as a notification — with "Allow
// once" and "Deny" for low and medium risk (acting through the session), else opening the
// approval — and opens the desk when a notification is pressed. It caches nothing: the desk
// is only useful with the service reachable.
'use strict';

const DESK = new URL('./', self.location.href).href;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** The push's payload: `{approval_id, risk, summary}` (small, masked by the service). */
function payload(event) {
  try {
    const data = event.data ? event.data.json() : null;
    if (data && typeof data.approval_id === 'string') return data;
  } catch (_) {
    // Not JSON: shown as a plain prompt below.
  }
  return null;
}

self.addEventListener('push', (event) => {
  const data = payload(event);
  const summary = data && typeof data.summary === 'string' ? data.summary.slice(0, 200) : 'An agent is asking.';
  const risk = data && typeof data.risk === 'string' ? data.risk : 'high';
  const quick = risk === 'low' || risk === 'medium';
  const options = {
    body: `${summary}\nRisk: ${risk}`,
    tag: data ? `approval-${data.approval_id}` : 'approval',
    data: data || {},
    requireInteraction: !quick,
    actions: quick
      ? [
          { action: 'allow', title: 'Allow once' },
          { action: 'deny', title: 'Deny' },
        ]
      : [{ action: 'open', title: 'Review' }],
  };
  event.waitUntil(self.registration.showNotification('Assent: an agent asks', options));
});

async function decide(id, action) {
  const body = action === 'allow' ? { decision: 'approve', scope: 'once' } : { decision: 'deny', reason: 'denied from a notification' };
  const response = await fetch(`../v1/approvals/${encodeURIComponent(id)}/decision`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.ok) return null;
  if (response.status === 409 || response.status === 404) return 'This prompt was decided meanwhile (or has expired).';
  if (response.status === 401) return 'Sign in to the desk to decide.';
  const detail = await response.json().catch(() => null);
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
        problem ? self.registration.showNotification('Assent', { body: problem, tag: `approval-${id}` }) : null,
      ),
    );
    return;
  }
  event.waitUntil(open(id));
});
