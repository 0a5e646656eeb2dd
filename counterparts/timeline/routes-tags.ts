/**
 * The allowed-tag-combination routes of the reference Timeline server: reading
 * the combinations a caller may use (or, for administrators and content
 * editors, every list with `getAll=true`) and replacing them, which only
 * managers may do and only while the server takes its tags from the service.
 */
import { z } from 'zod'
import { describeIssues, readJson } from './request-bodies.ts'
import { errorResponse, forbidden, json } from './responses.ts'
import type { RouteContext } from './router.ts'
import { expandTagLines, normaliseAppliesTo, type TimelineStore, type UserRecord } from './store.ts'

function tagListJson(store: TimelineStore, tagCombinations: string[], apiUrl: string): Response {
  return json(store, { tagCombinations, links: [{ rel: 'self', href: `${apiUrl}/tagcombinationlist` }] })
}

function mayManageTags(user: UserRecord): boolean {
  return user.role === 'administrator' || user.role === 'contentEditor'
}

export function readTagList({ store, url, apiUrl, user }: RouteContext): Response {
  if (url.searchParams.get('getAll')?.toLowerCase() === 'true') {
    if (!mayManageTags(user)) {
      return forbidden(
        store,
        `User '${user.username}' (${user.role}) may not list all tag combinations; administrator or content editor needed.`,
      )
    }
    return tagListJson(store, store.allowedTagsListing(), apiUrl)
  }
  return tagListJson(store, store.allowedTagsFor(user.username), apiUrl)
}

const TagListBody = z.object({
  tagcombinations: z.array(z.string()),
  usertagcombinationlists: z.array(z.object({ users: z.array(z.string()), tagcombinations: z.array(z.string()) })).optional(),
})

export async function writeTagList({ store, request, apiUrl, user }: RouteContext): Promise<Response> {
  if (!mayManageTags(user)) {
    return forbidden(store, `User '${user.username}' (${user.role}) may not set tag combinations; administrator or content editor needed.`)
  }
  if (store.settings.tagSource !== 'service') {
    return errorResponse(
      store,
      409,
      'Tags/SourceNotService',
      'The server takes allowed tags from another source; set the tag combination source to Service.',
    )
  }
  const raw = await readJson(request, false)
  if (!raw.ok) return errorResponse(store, 400, 'Validation', raw.problem)
  const body = TagListBody.safeParse(raw.value)
  if (!body.success) return errorResponse(store, 400, 'Validation', describeIssues(body.error))
  const everyone = expandTagLines(body.data.tagcombinations)
  if (!everyone.ok) return errorResponse(store, 400, 'Validation', `tagCombinations: ${everyone.problem}`)
  const groups = []
  for (const [index, list] of (body.data.usertagcombinationlists ?? []).entries()) {
    const expanded = expandTagLines(list.tagcombinations)
    if (!expanded.ok) {
      return errorResponse(store, 400, 'Validation', `userTagCombinationLists[${index}].tagCombinations: ${expanded.problem}`)
    }
    if (list.users.length === 0) {
      return errorResponse(store, 400, 'Validation', `userTagCombinationLists[${index}].users is empty.`)
    }
    groups.push({ appliesTo: list.users.map(normaliseAppliesTo), combinations: expanded.combinations })
  }
  store.setAllowedTags({ everyone: everyone.combinations, groups })
  return tagListJson(store, store.allowedTagsFor(user.username), apiUrl)
}
