import { addAbortSignal, type Readable } from 'node:stream';

/**
 * Runs an adapter's `write` over `body`'s bytes and returns how many there were. An abort destroys the
 * body, so the write fails as it would on a broken body; the put then rejects with the abort's reason or
 * the body's own error rather than with whatever the adapter's cleanup threw on top. An abort that comes
 * after the write finished fails the put too, once `takeBack` has removed what the write stored.
 */
export async function writeBody(
  body: Readable,
  signal: AbortSignal | undefined,
  write: (bytes: AsyncIterable<Uint8Array>) => Promise<void>,
  takeBack: () => Promise<void>,
): Promise<number> {
  let size = 0;
  let bodyError: unknown;
  async function* counted(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of body as AsyncIterable<unknown>) {
        // A stream with an encoding set yields strings: decoding them again could change the bytes.
        if (!(chunk instanceof Uint8Array)) throw new TypeError('a stored body must yield bytes');
        size += chunk.byteLength;
        yield chunk;
      }
    } catch (error) {
      bodyError = error;
      throw error;
    }
  }
  try {
    signal?.throwIfAborted();
    if (signal) addAbortSignal(signal, body);
    await write(counted());
  } catch (error) {
    body.destroy();
    throw signal?.aborted ? signal.reason : (bodyError ?? error);
  }
  if (signal?.aborted) {
    await takeBack();
    throw signal.reason;
  }
  return size;
}
