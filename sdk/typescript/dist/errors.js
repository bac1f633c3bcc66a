/** What can go wrong talking to the service. Decisions are never errors: a denial or a timeout
 * is a value (see `results.ts`). */
export class AssentError extends Error {
    constructor(message) {
        super(message);
        this.name = new.target.name;
    }
}
/** The service answered with an error body; `code` is its stable error code
 * (`unauthorized`, `forbidden`, `not_found`, `unprocessable` …). */
export class ServiceError extends AssentError {
    status;
    code;
    detail;
    constructor(status, code, detail) {
        super(`the service answered ${status} ${code}: ${detail}`);
        this.status = status;
        this.code = code;
        this.detail = detail;
    }
}
/** The answer is not what the service's OpenAPI document says (not JSON, a missing field, an
 * event line past the size limit …). */
export class MalformedResponse extends AssentError {
}
/** The service could not be reached. */
export class Unavailable extends AssentError {
}
/** A webhook's signature, id or timestamp did not verify: never act on such a message. */
export class WebhookVerificationFailed extends AssentError {
}
