/**
 * Reading the JSON bodies of writes to the reference Timeline server: an empty
 * or malformed body, property names that match case-insensitively (as the real
 * server's do), and validation problems worded with the names the spec uses.
 * The activity and tag-list routes share it so that their 400 messages agree.
 */
import type { z } from 'zod'

export type JsonRead = { ok: true; value: unknown } | { ok: false; problem: string }

/** The body with its property names in lower case; an empty body is `{}` when `optional`, else a problem. */
export async function readJson(request: Request, optional: boolean): Promise<JsonRead> {
  const text = await request.text()
  if (text.trim() === '') return optional ? { ok: true, value: {} } : { ok: false, problem: 'The request body is empty.' }
  try {
    return { ok: true, value: lowerKeys(JSON.parse(text)) }
  } catch {
    return { ok: false, problem: 'The request body is not valid JSON.' }
  }
}

/** Property names in request bodies match case-insensitively: compare them in lower case. */
export function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.toLowerCase(), lowerKeys(inner)]))
  }
  return value
}

const FIELD_NAMES: Record<string, string> = {
  expectedlastchangeid: 'expectedLastChangeId',
  timeinterval: 'timeInterval',
  tagcombinations: 'tagCombinations',
  usertagcombinationlists: 'userTagCombinationLists',
}

/** Zod's issues as one line, with the spec's spelling of the lower-cased property names. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((part) => (typeof part === 'string' ? (FIELD_NAMES[part] ?? part) : `[${String(part)}]`))
      return `${path.join('.').replace(/\.\[/g, '[') || 'body'}: ${issue.message}`
    })
    .join('; ')
}
