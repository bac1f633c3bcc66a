/** A small server-sent-events reader with a bound on each line: an endless line is a clear
 * error, not all memory. */
import { MalformedResponse } from './errors.js';
/** Longest line (and event) accepted by default: 1 MiB. */
export const MAX_LINE_BYTES = 1 << 20;
export async function* sseEvents(body, maxLine = MAX_LINE_BYTES) {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let pending = new Uint8Array(0);
    let event = null;
    let id = null;
    let data = [];
    let size = 0;
    const tooLong = () => new MalformedResponse(`an event line longer than ${maxLine} bytes`);
    for await (const chunk of body) {
        const joined = new Uint8Array(pending.length + chunk.length);
        joined.set(pending);
        joined.set(chunk, pending.length);
        let start = 0;
        for (let i = 0; i < joined.length; i++) {
            const byte = joined[i];
            if (byte !== 0x0a && byte !== 0x0d)
                continue;
            if (byte === 0x0d && i + 1 === joined.length)
                break; // maybe half of "\r\n"
            if (i - start > maxLine)
                throw tooLong();
            let line;
            try {
                line = decoder.decode(joined.subarray(start, i));
            }
            catch {
                throw new MalformedResponse('an event line that is not UTF-8');
            }
            if (byte === 0x0d && joined[i + 1] === 0x0a)
                i++;
            start = i + 1;
            if (line === '') {
                if (data.length > 0)
                    yield { event, id, data: data.join('\n') };
                event = null;
                data = [];
                size = 0;
                continue;
            }
            if (line.startsWith(':'))
                continue;
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            let value = colon === -1 ? '' : line.slice(colon + 1);
            if (value.startsWith(' '))
                value = value.slice(1);
            if (field === 'data') {
                size += value.length;
                if (size > maxLine)
                    throw new MalformedResponse(`an event longer than ${maxLine} bytes`);
                data.push(value);
            }
            else if (field === 'event')
                event = value;
            else if (field === 'id')
                id = value;
        }
        pending = joined.slice(start);
        if (pending.length > maxLine)
            throw tooLong();
    }
}
