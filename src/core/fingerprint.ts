/**
 * The Base fingerprint: a short, stable digest of the values a sync carries
 * for one activity, so the sheet side and the server side can each be
 * compared with what the last run left behind. Pure JS, deterministic across
 * runs and machines: 64-bit FNV-1a over a normalised JSON text, base64url.
 */
import { parseOffsetInstant } from './time.ts'
import { combineTags, splitTags } from './tags.ts'

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
const FNV_OFFSET = 0xcbf29ce484222325n
const FNV_PRIME = 0x100000001b3n
const MASK_64 = 0xffffffffffffffffn

/** The normalised text the fingerprint digests (exported for tests and debugging). */
export function normaliseSyncedValues(values: SyncedValues): string {
  return JSON.stringify([
    FORMAT_VERSION,
    values.user.trim(),
    parseOffsetInstant(values.start).epochSeconds,
    values.duration,
    // Hierarchy then labels: where the server happens to hold a label is not a change.
    combineTags(splitTags(values.tags)),
    normaliseNotes(values.notes),
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

/** 64-bit FNV-1a over the UTF-8 bytes of a text, as 11 base64url characters. */
export function fnv1a64Base64url(text: string): string {
  let hash = FNV_OFFSET
  for (const byte of new TextEncoder().encode(text)) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64
  }
  const bytes = new Uint8Array(8)
  for (let i = 7; i >= 0; i--) {
    bytes[i] = Number(hash & 0xffn)
    hash >>= 8n
  }
  return Buffer.from(bytes).toString('base64url')
}
