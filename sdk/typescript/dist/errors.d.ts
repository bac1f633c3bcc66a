/** What can go wrong talking to the service. Decisions are never errors: a denial or a timeout
 * is a value (see `results.ts`). */
export declare class AssentError extends Error {
    constructor(message: string);
}
/** The service answered with an error body; `code` is its stable error code
 * (`unauthorized`, `forbidden`, `not_found`, `unprocessable` …). */
export declare class ServiceError extends AssentError {
    readonly status: number;
    readonly code: string;
    readonly detail: string;
    constructor(status: number, code: string, detail: string);
}
/** The answer is not what the service's OpenAPI document says (not JSON, a missing field, an
 * event line past the size limit …). */
export declare class MalformedResponse extends AssentError {
}
/** The service could not be reached. */
export declare class Unavailable extends AssentError {
}
/** A webhook's signature, id or timestamp did not verify: never act on such a message. */
export declare class WebhookVerificationFailed extends AssentError {
}
