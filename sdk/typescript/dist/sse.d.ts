/** A small server-sent-events reader with a bound on each line: an endless line is a clear
 * error, not all memory. */
/** Longest line (and event) accepted by default: 1 MiB. */
export declare const MAX_LINE_BYTES: number;
export interface SseEvent {
    event: string | null;
    id: string | null;
    data: string;
}
export declare function sseEvents(body: AsyncIterable<Uint8Array>, maxLine?: number): AsyncGenerator<SseEvent>;
