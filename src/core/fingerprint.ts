/**
 * The Base fingerprint: a short, stable digest of the values a sync carries
 * for one activity, so the sheet side and the server side can each be
 * compared with what the last run left behind. Pure JS, deterministic across
 * runs and machines: 64-bit FNV-1a over a normalised JSON text, base64url.
 */
import { parseOffsetInstant } from './instant.ts'
import { combineTags, isLabel, splitTags, tagListJson } from './tags.ts'

/** The synced values of one activity, in the form the fingerprint reads. */
export interface SyncedValues {
  /** Owner's username. */
  user: string
  /** ISO start with offset; only the instant counts (the offset is how it was written, not what it is). */
  start: string
  /** Seconds. */
  duration: number
  tags: readonly string[]
  notes: string | undefined
}

/** Bump when the normalised form changes: an old Base then reads as "changed" on both sides, never as equal. */
const FORMAT_VERSION = 1
/** FNV-1a 64: offset basis 0xcbf29ce484222325, prime 0x100000001b3 (= 2^40 + 0x1b3). */
const FNV_OFFSET_HI = 0xcbf29ce4
const FNV_OFFSET_LO = 0x84222325
const FNV_PRIME_LO = 0x1b3
const encoder = new TextEncoder()

/** The normalised text the fingerprint digests (exported for tests and debugging). */
export function normaliseSyncedValues(values: SyncedValues): string {
  return JSON.stringify([
    FORMAT_VERSION,
    values.user.trim(),
    parseOffsetInstant(values.start).epochSeconds,
    values.duration,
    // Hierarchy then labels: where the server happens to hold a label is not a change.
    inSplitOrder(values.tags) ? values.tags : combineTags(splitTags(values.tags)),
    normaliseNotes(values.notes),
  ])
}

/** Notes as compared: absent and empty are the same; CRLF and CR read as LF. */
export function normaliseNotes(notes: string | undefined): string {
  if (notes === undefined) return ''
  return notes.includes('\r') ? notes.replace(/\r\n?/g, '\n') : notes
}

/** 11-character base64url fingerprint of the synced values. */
export function fingerprint(values: SyncedValues): string {
  return fingerprintAt(values.user, parseOffsetInstant(values.start).epochSeconds, values.duration, values.tags, values.notes)
}

/**
 * The fingerprint of an activity (as the server holds it, as a row asks for it, as a journal recorded it)
 * and its owner: the one way every part of the tool computes a Base.
 */
export function fingerprintOf(of: {
  user: string
  activity: { start: string; duration: number; tags: readonly string[]; notes: string | undefined }
}): string {
  const a = of.activity
  return fingerprint({ user: of.user, start: a.start, duration: a.duration, tags: a.tags, notes: a.notes })
}

/** True when no hierarchy tag follows a label: the order `combineTags(splitTags(…))` gives (as every row's tags have). */
function inSplitOrder(tags: readonly string[]): boolean {
  let labels = false
  for (const tag of tags) {
    if (isLabel(tag)) labels = true
    else if (labels) return false
  }
  return true
}

/**
 * `fingerprintOf` for values whose start the caller holds as an instant already (`epochSeconds`: what its start
 * text parses to): a sheet's rows are fingerprinted as they are read, without reading each start's text back.
 */
export function fingerprintAt(
  user: string,
  epochSeconds: number,
  duration: number,
  tags: readonly string[],
  notes: string | undefined,
): string {
  // The digest of `normaliseSyncedValues`'s text, hashed part by part as JSON.stringify would write it, so the
  // text itself is never built (a property test holds the two to the same digest). A part that is JSON text is
  // well-formed UTF-16 (JSON.stringify escapes lone surrogates), so no surrogate pair is split between parts.
  hashStart()
  hashText(PREFIX)
  hashText(JSON.stringify(user.trim()))
  hashByte(COMMA)
  hashNumber(epochSeconds)
  hashByte(COMMA)
  hashNumber(duration)
  hashByte(COMMA)
  hashText(tagListJson(inSplitOrder(tags) ? tags : combineTags(splitTags(tags))))
  hashByte(COMMA)
  hashText(notes === undefined || notes === '' ? EMPTY_JSON_STRING : JSON.stringify(normaliseNotes(notes)))
  hashByte(CLOSE)
  return hashDigest()
}

const PREFIX = `[${FORMAT_VERSION},`
const COMMA = 0x2c
const CLOSE = 0x5d
const EMPTY_JSON_STRING = '""'

/** 64-bit FNV-1a over the UTF-8 bytes of a text, as 11 base64url characters. */
export function fnv1a64Base64url(text: string): string {
  hashStart()
  hashText(text)
  return hashDigest()
}

// FNV-1a state between the parts of one digest: four 16-bit limbs (h0 lowest). Every product and carry stays a
// small integer, where 32-bit halves need a float multiply and a division per byte, and this runs over every
// byte of every row an import digests. × 0x100000001b3 = × 0x1b3 + × 2^40 (mod 2^64): × 2^40 adds h0 << 8 to
// limb 2 and h1 << 8 to limb 3.
let h0 = 0
let h1 = 0
let h2 = 0
let h3 = 0

function hashStart(): void {
  h0 = FNV_OFFSET_LO & 0xffff
  h1 = FNV_OFFSET_LO >>> 16
  h2 = FNV_OFFSET_HI & 0xffff
  h3 = FNV_OFFSET_HI >>> 16
}

/** Hashes one byte (an ASCII character's code). */
function hashByte(byte: number): void {
  const v0 = h0 ^ byte
  const t0 = v0 * FNV_PRIME_LO
  const t1 = h1 * FNV_PRIME_LO + (t0 >>> 16)
  const t2 = h2 * FNV_PRIME_LO + (v0 << 8) + (t1 >>> 16)
  h3 = (h3 * FNV_PRIME_LO + (h1 << 8) + (t2 >>> 16)) & 0xffff
  h0 = t0 & 0xffff
  h1 = t1 & 0xffff
  h2 = t2 & 0xffff
}

/** Hashes the UTF-8 bytes of a text, as TextEncoder encodes it. */
function hashText(text: string): void {
  let v0 = h0
  let v1 = h1
  let v2 = h2
  let v3 = h3
  const length = text.length
  let i = 0
  // ASCII is its own UTF-8: hashed from the char codes, no bytes made.
  for (; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x80) break
    v0 ^= c
    const t0 = v0 * FNV_PRIME_LO
    const t1 = v1 * FNV_PRIME_LO + (t0 >>> 16)
    const t2 = v2 * FNV_PRIME_LO + (v0 << 8) + (t1 >>> 16)
    v3 = (v3 * FNV_PRIME_LO + (v1 << 8) + (t2 >>> 16)) & 0xffff
    v0 = t0 & 0xffff
    v1 = t1 & 0xffff
    v2 = t2 & 0xffff
  }
  h0 = v0
  h1 = v1
  h2 = v2
  h3 = v3
  if (i < length) {
    // The rest from its first non-ASCII character on, as TextEncoder encodes it: the prefix is ASCII, so the cut
    // never splits a surrogate pair, and lone surrogates become U+FFFD as in encoding the whole text. Rare (names
    // and notes in other scripts), so byte by byte through hashByte; only the ASCII loop above repeats its step,
    // in locals, because nearly every byte of a sheet goes through it.
    for (const byte of encoder.encode(text.slice(i))) hashByte(byte)
  }
}

/** Hashes a number as JSON.stringify writes it: a safe integer digit by digit, without making its text. */
function hashNumber(n: number): void {
  if (!Number.isSafeInteger(n)) {
    hashText(Number.isFinite(n) ? String(n) : 'null')
    return
  }
  if (n < 0) hashByte(0x2d)
  let rest = Math.abs(n)
  let count = 0
  do {
    const digit = rest % 10
    DIGITS[count++] = 0x30 + digit
    rest = (rest - digit) / 10
  } while (rest > 0)
  while (count > 0) hashByte(DIGITS[--count]!)
}

/** A safe integer's digits, last first (at most 16). */
const DIGITS = new Uint8Array(16)

function hashDigest(): string {
  return base64url64(((h3 << 16) | h2) >>> 0, ((h1 << 16) | h0) >>> 0)
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * The 8 bytes `hi`‖`lo` (big-endian) in base64url without padding, as `Buffer#toString('base64url')` writes them:
 * ten 6-bit groups from the top, then the last 4 bits shifted up by 2. No buffer per fingerprint.
 */
function base64url64(hi: number, lo: number): string {
  const c = (bits: number) => BASE64URL[bits & 63]!
  // Bits 63…0 of the digest; groups that straddle the halves take from both.
  return (
    c(hi >>> 26) +
    c(hi >>> 20) +
    c(hi >>> 14) +
    c(hi >>> 8) +
    c(hi >>> 2) +
    c(((hi & 3) << 4) | (lo >>> 28)) +
    c(lo >>> 22) +
    c(lo >>> 16) +
    c(lo >>> 10) +
    c(lo >>> 4) +
    c((lo & 15) << 2)
  )
}
