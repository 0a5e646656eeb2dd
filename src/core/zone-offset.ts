/**
 * A time zone's UTC offset at an instant, looked up once per quarter hour and kept in two caches (a small table
 * of the last zone's recent quarters, then a map per zone), and the check that a zone name is one the runtime
 * knows. It stands apart because every conversion between instants and wall-clock readings asks it, thousands
 * of times per sheet, and its caching is a concern of its own that no caller needs to see.
 */
import { tzOffset } from '@date-fns/tz'
import { TimelineSheetsError } from '../errors.ts'

/** Throws unless `timeZone` is an IANA zone (or offset) the runtime knows. */
export function assertTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone })
  } catch {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `Unknown time zone "${timeZone}"`, {
      hint: 'Use an IANA time zone name such as Europe/Berlin or America/New_York.',
    })
  }
}

/** The zone's UTC offset in minutes at an instant. */
export function zoneOffsetMinutes(timeZone: string, epochSeconds: number): number {
  // Offsets since 1970 change only on quarter hours (UTC), so one lookup serves a whole quarter hour.
  // A 100,000-row sheet asks for the same few thousand quarter hours over and over.
  const cacheable = epochSeconds >= 0
  const quarter = Math.floor(epochSeconds / QUARTER_HOUR)
  // First a small table of the last zone's quarters, indexed by the quarter's low bits: a row asks about a dozen
  // quarter hours around its Start and End, and an array slot answers each without the two Map lookups below.
  const slot = quarter & (RECENT_SIZE - 1)
  if (timeZone === recentZone && recentQuarters[slot] === quarter && cacheable) return recentOffsets[slot]!
  let zoneCache = offsetCache.get(timeZone)
  const cached = cacheable ? zoneCache?.get(quarter) : undefined
  if (cached !== undefined) return rememberRecent(timeZone, slot, quarter, cached)
  // Whole seconds: local mean time before a zone's first standard offset has them (−00:44:30 in Monrovia until 1972).
  const offset = Math.round(tzOffset(timeZone, new Date(epochSeconds * 1000)) * 60) / 60
  if (!Number.isFinite(offset)) assertTimeZone(timeZone)
  if (cacheable) {
    if (!zoneCache || zoneCache.size >= OFFSET_CACHE_LIMIT) {
      zoneCache = new Map()
      offsetCache.set(timeZone, zoneCache)
    }
    zoneCache.set(quarter, offset)
    return rememberRecent(timeZone, slot, quarter, offset)
  }
  return offset
}

function rememberRecent(timeZone: string, slot: number, quarter: number, offset: number): number {
  if (timeZone !== recentZone) {
    recentZone = timeZone
    recentQuarters.fill(-1)
  }
  recentQuarters[slot] = quarter
  recentOffsets[slot] = offset
  return offset
}

/** Slots of the recent table (a power of two): three weeks of quarter hours. */
const RECENT_SIZE = 2048
let recentZone: string | undefined
/** The quarter each slot holds (−1: none; only quarters since 1970 are kept), and its offset. */
const recentQuarters = new Float64Array(RECENT_SIZE).fill(-1)
const recentOffsets = new Float64Array(RECENT_SIZE)

const QUARTER_HOUR = 900
const OFFSET_CACHE_LIMIT = 200_000
/** Zone → quarter hour since 1970 → offset (numbers as keys: building a text key costs more than the lookup). */
const offsetCache = new Map<string, Map<number, number>>()
