/**
 * Request bodies gzip-compressed on their way to Google, as Google's Java and
 * .NET API clients send them (its Node and Python clients do not; no Google
 * reference says a compressed body is taken, so `doctor --write-test` asks;
 * decisions/0017): a batch of typed cells is mostly the same few JSON keys, so
 * it leaves at a fifteenth of its size or less.
 */
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { Transport } from '../../http/transport.ts'

const gzipAsync = promisify(gzip)
const utf8 = new TextEncoder()

/** Bodies shorter than this leave as they are: the gzip frame would be most of what it saves. */
export const GZIP_MIN_BYTES = 1024

/** A request body as it leaves: its bytes, gzip-compressed or not. */
export interface EncodedBody {
  bytes: Uint8Array<ArrayBuffer>
  gzip: boolean
}

/**
 * `json` as the bytes it leaves as: compressed when `compress` and it is
 * `minBytes` or more, as the transport would compress it. `json` may come in
 * pieces, sent as they are one after another: a batch of rows is encoded from
 * its rows' own texts, never joined into one more copy of megabytes first. A
 * write encodes its next batch while the one before is still in flight, so the
 * batch leaves the moment the answer comes.
 */
export async function encodeBody(json: string | readonly string[], compress: boolean, minBytes = GZIP_MIN_BYTES): Promise<EncodedBody> {
  // As bytes: a string body is checked for lone surrogates by fetch (a USVString), a scan as long as the body.
  const plain = utf8Bytes(json)
  if (!compress || plain.byteLength < minBytes) return { bytes: plain, gzip: false }
  return { bytes: new Uint8Array(await gzipAsync(plain)), gzip: true }
}

/** The UTF-8 of the pieces one after another; a lone surrogate becomes U+FFFD, as `Buffer.from` writes it. */
function utf8Bytes(json: string | readonly string[]): Uint8Array<ArrayBuffer> {
  if (typeof json === 'string') return utf8.encode(json)
  let length = 0
  for (const piece of json) length += Buffer.byteLength(piece, 'utf8')
  const bytes = new Uint8Array(length)
  let at = 0
  for (const piece of json) at += utf8.encodeInto(piece, bytes.subarray(at)).written
  return bytes
}

/**
 * Wraps a transport so that a request body of `minBytes` or more leaves
 * compressed, with `content-encoding: gzip`. A body already encoded, and every
 * body-less request, passes through unchanged (so does a body `encodeBody` compressed). Compression runs on libuv's
 * thread pool, so the next chunk is built while this one is compressed.
 */
export function gzipRequestBodies(transport: Transport, minBytes = GZIP_MIN_BYTES): Transport {
  return async (request) => {
    if (request.body === null || request.headers.has('content-encoding')) return transport(request)
    const plain = new Uint8Array(await request.arrayBuffer())
    const headers = new Headers(request.headers)
    if (plain.byteLength < minBytes) return transport(rebuilt(request, headers, plain))
    const packed = new Uint8Array(await gzipAsync(plain))
    headers.set('content-encoding', 'gzip')
    headers.delete('content-length')
    return transport(rebuilt(request, headers, packed))
  }
}

/** The same request with another body: `Request` bodies can be read once, so the original cannot be sent after. */
function rebuilt(request: Request, headers: Headers, body: Uint8Array<ArrayBuffer>): Request {
  return new Request(request.url, {
    method: request.method,
    headers,
    body,
    signal: request.signal,
    redirect: request.redirect,
  })
}
