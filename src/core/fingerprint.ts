/**
 * The Base fingerprint: a short, stable digest of the values a sync carries
 * for one activity, so the sheet side and the server side can each be
 * compared with what the last run left behind. Pure JS, deterministic across
 * runs and machines: 64-bit FNV-1a over a normalised JSON text, base64url.
 */
import { parseOffsetInstant } from './time.ts'
import { combineTags, isLabel, splitTags } from './tags.ts'

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
  return normalisedAt(values.user, parseOffsetInstant(values.start).epochSeconds, values.duration, values.tags, values.notes)
}

function normalisedAt(user: string, epochSeconds: number, duration: number, tags: readonly string[], notes: string | undefined): string {
  return JSON.stringify([
    FORMAT_VERSION,
    user.trim(),
    epochSeconds,
    duration,
    // Hierarchy then labels: where the server happens to hold a label is not a change.
    inSplitOrder(tags) ? tags : combineTags(splitTags(tags)),
    normaliseNotes(notes),
  ])
}

/** Notes as compared: absent and empty are the same; CRLF and CR read as LF. */
export function normaliseNotes(notes: string | undefined): string {
  return (notes ?? '').replace(/\r\n?/g, '\n')
}

/** 11-character base64url fingerprint of the synced values. */
export function fingerprint(values: SyncedValues): string {
  return fnv1a64Base64url(normaliseSyncedValues(values))
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
  return fnv1a64Base64url(normalisedAt(user, epochSeconds, duration, tags, notes))
}

/** 64-bit FNV-1a over the UTF-8 bytes of a text, as 11 base64url characters. */
export function fnv1a64Base64url(text: string): string {
  // The 64-bit state as two 32-bit halves in plain numbers: a BigInt multiply per byte made this the
  // hottest function of an import of a 100k-row sheet (bench/README.md, issue 5).
  // × 0x100000001b3 = × 2^40 + × 0x1b3 (mod 2^64); every partial product stays below 2^53.
  const bytes: { readonly length: number; [i: number]: number } | undefined = isAscii(text) ? undefined : encoder.encode(text)
  const length = bytes ? bytes.length : text.length
  let hi = FNV_OFFSET_HI
  let lo = FNV_OFFSET_LO
  for (let i = 0; i < length; i++) {
    lo = (lo ^ (bytes ? bytes[i]! : text.charCodeAt(i))) >>> 0
    const low = lo * FNV_PRIME_LO
    hi = (hi * FNV_PRIME_LO + Math.floor(low / 0x1_0000_0000) + ((lo << 8) >>> 0)) >>> 0
    lo = low >>> 0
  }
  return base64url64(hi, lo)
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

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false
  return true
}
