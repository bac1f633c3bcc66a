/** The agent's side of the service: submit, wait (long-poll), the event stream. */
import { type ActionRequest, type Approval, type Decision, type Grant, type RunState, type StillPending, type Submitted } from './results.js';
/** Longest single long-poll (seconds); `waitForDecision` repeats it until its deadline. */
export declare const LONG_POLL_SLICE = 25;
/** With the service's heartbeat every 15 s, this long without a byte means the link is dead. */
export declare const IDLE_LIMIT_MS = 45000;
/** One event of the agent's stream; `id` is the persisted id to resume after. */
export interface AgentEvent {
    id: number;
    at: string;
    type: string;
    approval: Approval | null;
    grant: Grant | null;
    run: RunState | null;
    /** For `approval.settled`: the decision as a value. */
    decision: Decision | StillPending | null;
    raw: Record<string, unknown>;
}
export interface ClientOptions {
    url: string;
    /** The agent's token (the service's `requester.token`, or one from `assent agents add`). */
    token: string;
    fetch?: typeof fetch;
}
export interface EventsOptions {
    lastEventId?: number | null;
    signal?: AbortSignal;
    maxLineBytes?: number;
    /** Reconnect (with backoff) after a dropped connection; default true. */
    reconnect?: boolean;
    /** Called with each dropped connection's reason before reconnecting. */
    onDisconnect?: (reason: string) => void;
}
export declare class Client {
    private readonly base;
    private readonly token;
    private readonly fetchImpl;
    constructor(options: ClientOptions);
    /** `POST /v1/actions`. With `idempotencyKey` a retry answers the first answer (the same
     * approval), never a second prompt; the key reused with another request throws a
     * `ServiceError` with code `unprocessable`. */
    submit(request: ActionRequest, options?: {
        idempotencyKey?: string;
    }): Promise<Submitted>;
    /** `GET /v1/approvals/{id}?wait=S`: the decision, or `still_pending` when nothing was decided
     * within `waitSeconds` (0: answer at once, for a loop that cannot block). */
    decision(approvalId: string, options?: {
        waitSeconds?: number;
    }): Promise<Decision | StillPending>;
    /** Long-polls (slices of at most 25 s) until decided or `timeoutMs` passes; then
     * `still_pending`. Resumable: call it again with the same id, here or in another process. */
    waitForDecision(approvalId: string, options: {
        timeoutMs: number;
    }): Promise<Decision | StillPending>;
    /** `GET /v1/runs/{id}`: whether the run goes on, or is paused/cancelled by a timeout. */
    run(runId: string): Promise<RunState>;
    /** `GET /v1/events`: this agent's own events, for ever (until `signal` aborts), resuming
     * after `lastEventId` and after every dropped connection. Errors of the service's answers
     * (a refused token, a malformed event, a line past `maxLineBytes`) throw. */
    events(options?: EventsOptions): AsyncGenerator<AgentEvent>;
    private call;
}
/** Parses one event's `data:` (an EventEnvelope) into an `AgentEvent`. */
export declare function envelope(text: string): AgentEvent;
