/**
 * Reading an activities answer: the schema's answer, with the entities checked by hand where they have the usual
 * shape. An answer holds thousands of entities, and zod copies and checks each one field by field, a cost a big
 * first export feels; the schema still decides every entity the hand check does not vouch for, so a refusal names
 * the first bad field in the schema's words.
 */
import { z } from 'zod'
import { isPlausibleStart } from './plausible-start.ts'
import { ActivitiesResponseSchema, MAX_ACTIVITY_SECONDS, parseBody, type ActivitiesResponseJson } from './schemas.ts'

/** `ActivitiesResponseSchema` with its entities left for `isAcceptedEntity`. */
const ActivitiesFrameSchema = ActivitiesResponseSchema.extend({ entities: z.array(z.unknown()) })

/**
 * `parseBody(ActivitiesResponseSchema, …)`, the same answer or the same refusal, with the entities checked by
 * `isAcceptedEntity`; the whole answer goes through the schema when one of them is not, so a refusal still names
 * the first bad field as the schema sees it.
 */
export function parseActivitiesBody(data: unknown, url: string): ActivitiesResponseJson {
  const frame = ActivitiesFrameSchema.safeParse(data)
  if (frame.success && frame.data.entities.every(isAcceptedEntity)) return frame.data as ActivitiesResponseJson
  return parseBody(ActivitiesResponseSchema, data, url)
}

/**
 * True only for an entity `EntitySchema` accepts as it is: an activity, group or group list of the usual shape, or
 * an entity of a type not checked. False is no verdict: the schema decides. test/property/entity-schema.test.ts
 * holds this check to the schema's verdict.
 */
export function isAcceptedEntity(entity: unknown): boolean {
  if (!isRecord(entity) || typeof entity['entityType'] !== 'string' || !Number.isSafeInteger(entity['entityId'])) return false
  const values = entity['values']
  if (values !== undefined && !isRecord(values)) return false
  switch (entity['entityType']) {
    case 'activity':
      return values !== undefined && isActivityValues(values)
    case 'groupList':
      return values !== undefined && isIdList(values['groupIds'])
    case 'group':
      return (
        values !== undefined &&
        optional(values['key'], isString) &&
        optional(values['name'], isString) &&
        optional(values['color'], isString) &&
        optional(values['skipColor'], isBoolean)
      )
    default:
      // The types the schema checks are the cases above: any other passes with any values, or none.
      return true
  }
}

function isActivityValues(values: Record<string, unknown>): boolean {
  const interval = values['timeInterval']
  if (!isRecord(interval)) return false
  const { start, duration } = interval
  return (
    optional(values['groupListId'], Number.isSafeInteger) &&
    optional(values['groupId'], Number.isSafeInteger) &&
    optional(values['isActive'], isBoolean) &&
    optional(values['name'], isString) &&
    (values['notes'] === null || optional(values['notes'], isString)) &&
    // isPlausibleStart reads the same form the schema's pattern for a start checks, so it answers for both.
    typeof start === 'string' &&
    isPlausibleStart(start) &&
    Number.isSafeInteger(duration) &&
    (duration as number) >= 0 &&
    (duration as number) <= MAX_ACTIVITY_SECONDS
  )
}

/** Every index, holes too (`every` would skip a hole, which the schema reads as undefined and refuses). */
function isIdList(value: unknown): boolean {
  if (!Array.isArray(value)) return false
  for (let i = 0; i < value.length; i++) if (!Number.isSafeInteger(value[i])) return false
  return true
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value)
}

const isString = (value: unknown): boolean => typeof value === 'string'
const isBoolean = (value: unknown): boolean => typeof value === 'boolean'
