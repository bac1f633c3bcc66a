import { describe, expect, it } from 'vitest';
import { inviteCode, passkeyBlocker } from './passkeys';
import { commandError } from './http';
import { EMPTY_DESK } from './desk';
import type { Approval } from './types';
import { failedRead, settledSince, SETTLED_KEPT, unreachable } from './web';

const page = (hostname: string, protocol = 'http:', port = '7391', isSecureContext = true) => ({
  isSecureContext,
  location: { hostname, port, protocol },
});

describe('the web desk', () => {
  it('reads an invite code only from an enrolment link', () => {
    expect(inviteCode('/desk/enrol', '#44fe31e4c6b037e528853d7f48292e3f4cd76b5f')).toBe('44fe31e4c6b037e528853d7f48292e3f4cd76b5f');
    // The desk itself, or a hash that is no code (a prompt to focus), is no invite.
    expect(inviteCode('/desk/', '#44fe31e4c6b037e528853d7f48292e3f4cd76b5f')).toBeNull();
    expect(inviteCode('/desk/enrol', '#/pending/abc')).toBeNull();
    expect(inviteCode('/desk/enrol', '#<img src=x onerror=alert(1)>')).toBeNull();
    expect(inviteCode('/desk/enrol', '')).toBeNull();
  });

  it('says why passkeys cannot work on a page, with the address that works', () => {
    expect(passkeyBlocker(page('localhost'), true)).toBeNull();
    const ip = passkeyBlocker(page('127.0.0.1'), true) ?? '';
    // WebAuthn refuses an IP address as relying party: the desk names the localhost URL.
    expect(ip).toContain('http://localhost:7391/desk/');
    expect(passkeyBlocker(page('desk.example.com', 'http:', '', false), true)).toContain('https://');
    expect(passkeyBlocker(page('localhost'), false)).toContain('cannot use passkeys');
  });

  it('maps the service answers to the codes the views branch on', () => {
    expect(commandError(401, null).code).toBe('signed_out');
    expect(commandError(403, { error: { code: 'forbidden', message: 'needs a role' } })).toEqual({ code: 'refused', message: 'needs a role' });
    // The policy's step-up: the browser answers it with a passkey made for the approval.
    expect(commandError(403, { error: { code: 'step_up_required', message: 'confirm' } }).code).toBe('step_up_required');
    expect(commandError(409, { error: { code: 'conflict', message: 'decided' } }).code).toBe('conflict');
    expect(commandError(400, { error: { message: 'bad' } }).code).toBe('invalid');
    // A body that is no error document (a proxy's page) still gives a message.
    expect(commandError(502, '<html>').message).toContain('502');
  });
});

describe('push on the web desk', () => {
  it('reads the VAPID key as applicationServerKey bytes', async () => {
    const { keyBytes } = await import('./push');
    // base64url without padding, as GET /v1/push/key answers: "-" and "_" decode too.
    expect(Array.from(keyBytes('BP-_'))).toEqual([0x04, 0xff, 0xbf]);
    expect(keyBytes('A'.repeat(87)).length).toBe(65);
  });

  it('says why a browser cannot be notified', async () => {
    const { pushBlocker } = await import('./push');
    const all = { serviceWorker: true, pushManager: true, notification: true };
    expect(pushBlocker({ isSecureContext: true }, all)).toBeNull();
    expect(pushBlocker({ isSecureContext: false }, all)).toContain('https://');
    expect(pushBlocker({ isSecureContext: true }, { ...all, pushManager: false })).toContain('cannot receive');
  });
});

describe('the web desk out of reach', () => {
  it('keeps the prompts it last read on screen, marked out of reach, instead of an empty queue', () => {
    const last = { ...EMPTY_DESK, pending: [{ approval_id: 'ap-1' } as Approval], link: { state: 'connected' as const } };
    const shown = unreachable(last, 'Failed to fetch');
    expect(shown.pending.map((a) => a.approval_id), 'the queue as last seen: not "Nothing waiting for you"').toEqual(['ap-1']);
    expect(shown.link, 'the link says it is down, and why').toEqual({ state: 'disconnected', reason: 'Failed to fetch' });
    expect(unreachable(EMPTY_DESK, 'x').pending, 'never read: nothing to keep').toEqual([]);
  });

  it('keeps them only while the service is out of reach, not once it refuses or fails', () => {
    const last = { ...EMPTY_DESK, pending: [{ approval_id: 'ap-1' } as Approval], link: { state: 'connected' as const } };
    const gone = failedRead(last, { code: 'unavailable', message: 'cannot reach the service: TypeError' });
    expect(gone.pending.length, 'the network dropped: the last read stays').toBe(1);
    const refused = failedRead(last, { code: 'refused', message: 'bob may not read the desk' });
    expect(refused.pending, 'access refused: what this person may no longer see is not kept').toEqual([]);
    expect(refused.link, 'and the reason is said').toEqual({ state: 'disconnected', reason: 'bob may not read the desk' });
  });
});

describe('the web desk hears how a prompt settled', () => {
  const listed = (id: string, status: Approval['status'] = 'requested') => ({ approval_id: id, status, decided_by: status === 'requested' ? undefined : 'alice' }) as Approval;

  it('reads the prompts that left the list, newest first before those it knew, at most SETTLED_KEPT', async () => {
    const asked: string[] = [];
    const read = async (id: string) => {
      asked.push(id);
      if (id === 'unreadable') throw { code: 'unavailable', message: 'gone' };
      return listed(id, 'denied');
    };
    const before = { ...EMPTY_DESK, pending: [listed('a'), listed('b'), listed('unreadable')], settled: [listed('old', 'denied')] };
    const now = { ...EMPTY_DESK, pending: [listed('b')] };
    const settled = await settledSince(before, now, read);
    expect(asked, 'only the prompts that left are read').toEqual(['a', 'unreadable']);
    expect(settled.map((a) => a.approval_id), 'the one read, then those known; an unreadable one is left out').toEqual(['a', 'old']);
    const many = { ...EMPTY_DESK, pending: Array.from({ length: 40 }, (_, i) => listed(`p${i}`)) };
    expect((await settledSince(many, EMPTY_DESK, read)).length, 'a bounded list').toBe(SETTLED_KEPT);
  });
});
