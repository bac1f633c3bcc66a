// "Notify me on this device": the browser subscribes to the service's Web Push with its VAPID
// key (GET /v1/push/key) and hands the subscription's `toJSON()` to the service, for the
// signed-in person; the service worker (public/sw.js) shows what arrives.
import type { PushKey } from './types';
import { call } from './http';

/** Why this browser cannot be notified, in words; null when it can. */
export function pushBlocker(w: { isSecureContext: boolean }, has: { serviceWorker: boolean; pushManager: boolean; notification: boolean }): string | null {
  if (!w.isSecureContext) return 'Notifications need a secure page: open the desk over https:// (or at http://localhost).';
  if (!has.serviceWorker || !has.pushManager || !has.notification) return 'This browser cannot receive push notifications.';
  return null;
}

/** The key as `applicationServerKey` takes it: base64url (no padding) to bytes. */
export function keyBytes(key: string): Uint8Array {
  const base64 = key.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (key.length % 4)) % 4);
  const raw = atob(base64);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function registration(): Promise<ServiceWorkerRegistration> {
  return navigator.serviceWorker.ready;
}

/** This browser's current subscription, if it has one. */
export async function pushCurrent(): Promise<PushSubscription | null> {
  return (await registration()).pushManager.getSubscription();
}

/** Subscribes this browser and registers it for the signed-in person. */
export async function pushSubscribe(): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw { code: 'refused', message: 'Notifications are blocked for this site in the browser.' };
  const { key } = await call<PushKey>('GET', '/v1/push/key');
  const reg = await registration();
  const subscription =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) as BufferSource }));
  await call<null>('POST', '/v1/push/subscriptions', subscription.toJSON());
}

/** Stops notifications on this browser: the service forgets it, the browser unsubscribes. */
export async function pushUnsubscribe(): Promise<void> {
  const subscription = await pushCurrent();
  if (!subscription) return;
  await call<null>('DELETE', '/v1/push/subscriptions', { endpoint: subscription.endpoint }).catch((err: { code?: string }) => {
    if (err.code !== 'conflict') throw err; // already gone at the service: fine
  });
  await subscription.unsubscribe();
}
