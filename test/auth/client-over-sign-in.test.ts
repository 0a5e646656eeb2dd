/**
 * The Timeline client end to end over the cloud and Windows sign-ins,
 * against the reference server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { createNtlmAuthenticator } from '../../counterparts/timeline/ntlm.ts'
import { createTimelineStore } from '../../counterparts/timeline/store.ts'
import { cloudSignIn } from '../../src/timeline/auth/cloud.ts'
import { ntlmSignIn } from '../../src/timeline/auth/ntlm.ts'
import { createTimelineClient } from '../../src/timeline/client.ts'
import { ACCOUNT, startTestCloud, type TestCloud } from './cloud-setup.ts'

let cloud: TestCloud
let windows: LoopbackServer
const windowsStore = createTimelineStore()
windowsStore.addUser({ username: 'EXAMPLE\\bridge', password: 'Br1dge-pw', role: 'contentEditor' })
windowsStore.createTimeline({ owner: 'EXAMPLE\\bridge', key: 'tags-bridge' })

beforeAll(async () => {
  cloud = await startTestCloud()
  windows = await serveOnLoopback(createTimelineHandler(windowsStore, { authenticator: createNtlmAuthenticator() }))
})
afterAll(async () => {
  await cloud?.close()
  await windows?.close()
})

const fast = { retry: { limit: 0 } }

describe('Timeline client over the sign-ins', () => {
  it('lists timelines in the cloud through the profile serverUrl', async () => {
    cloud.store.createTimeline({ owner: ACCOUNT, key: 'tags-alice' })
    const options = await cloud.login('post', 'client.json')
    const client = createTimelineClient({ signIn: cloudSignIn(options), ...fast })
    const links = await client.home()
    expect(links.some((link) => link.href.startsWith(`${cloud.api.url}acct-1/api/`))).toBe(true)
    expect((await client.tagsTimelines()).map((timeline) => timeline.timelineKey)).toEqual(['tags-alice'])
  })

  it('lists the Tags timeline with a Windows account', async () => {
    const signIn = ntlmSignIn({ baseUrl: windows.url, username: 'EXAMPLE\\bridge', password: 'Br1dge-pw' })
    try {
      const client = createTimelineClient({ signIn, ...fast })
      const timelines = await client.tagsTimelines()
      expect(timelines.map((timeline) => timeline.timelineKey)).toEqual(['tags-bridge'])
    } finally {
      await signIn.close()
    }
  })

  it('reports a wrong Windows password as TS_AUTH_FAILED through the client', async () => {
    const signIn = ntlmSignIn({ baseUrl: windows.url, username: 'EXAMPLE\\bridge', password: 'nope-wrong' })
    try {
      const client = createTimelineClient({ signIn, ...fast })
      await expect(client.tagsTimelines()).rejects.toMatchObject({ code: 'TS_AUTH_FAILED' })
    } finally {
      await signIn.close()
    }
  })
})
