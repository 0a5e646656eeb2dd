import { describe, expect, it } from 'vitest'
import { API, body, fixture, USERS } from './helpers.ts'

interface TagList {
  tagCombinations: string[]
  links: Array<{ rel: string; href: string }>
}

function withList() {
  const f = fixture()
  f.store.setAllowedTags({
    everyone: ['Acme, Website', 'Internal, Admin'],
    groups: [
      { appliesTo: [`[${USERS.bob.username}]`], combinations: ['Bob, Only'] },
      { appliesTo: ['{Design}'], combinations: ['Design, Team,.'] },
    ],
  })
  return f
}

describe('GET tagcombinationlist', () => {
  it('gives the current user everyone’s combinations plus their user and team groups', async () => {
    const { call } = withList()
    const alice = await call('GET', '/api/tagcombinationlist', { as: USERS.alice.username })
    expect(alice.headers.get('content-type')).toBe('application/vnd.manictime.v3+json; charset=utf-8')
    expect(await body<TagList>(alice)).toEqual({
      tagCombinations: ['Acme, Website', 'Internal, Admin', 'Design, Team,.'],
      links: [{ rel: 'self', href: `${API}/tagcombinationlist` }],
    })
    const bob = await body<TagList>(await call('GET', '/api/tagcombinationlist', { as: USERS.bob.username }))
    expect(bob.tagCombinations).toEqual(['Acme, Website', 'Internal, Admin', 'Bob, Only'])
    const reader = await body<TagList>(await call('GET', '/api/tagcombinationlist?getAll=false', { as: USERS.reader.username }))
    expect(reader.tagCombinations).toEqual(['Acme, Website', 'Internal, Admin'])
  })

  it.each(['admin', 'editor'] as const)('gives the flat listing with getAll=true to the %s', async (who) => {
    const { call } = withList()
    const response = await call('GET', '/api/tagcombinationlist?getAll=true', { as: USERS[who].username })
    expect(response.status).toBe(200)
    expect((await body<TagList>(response)).tagCombinations).toEqual([
      'Acme, Website',
      'Internal, Admin',
      '',
      '[EXAMPLE\\bob]',
      'Bob, Only',
      '',
      '{Design}',
      'Design, Team,.',
    ])
  })

  it.each(['reader', 'alice'] as const)('refuses getAll=true to the %s with 403', async (who) => {
    const { call } = withList()
    const response = await call('GET', '/api/tagcombinationlist?getAll=TRUE', { as: USERS[who].username })
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ errorCode: 'Forbidden', message: expect.stringContaining('content editor') })
  })
})

describe('POST tagcombinationlist', () => {
  it('replaces the whole list, expanding prefix lines, and answers the caller’s list', async () => {
    const { call, store } = withList()
    const response = await call('POST', '/api/tagcombinationlist', {
      as: USERS.editor.username,
      body: {
        TagCombinations: ['project,', ',task1', ',task2'],
        userTagCombinationLists: [
          { users: ['alice@example.com', '{Support}'], tagCombinations: ['Client,', ',Design,', ',,Task1', ',Review,.'] },
        ],
      },
    })
    expect(response.status).toBe(200)
    expect(await body<TagList>(response)).toEqual({
      tagCombinations: ['project, task1', 'project, task2'],
      links: [{ rel: 'self', href: `${API}/tagcombinationlist` }],
    })
    expect(store.allowedTags()).toEqual({
      everyone: ['project, task1', 'project, task2'],
      groups: [{ appliesTo: ['[alice@example.com]', '{Support}'], combinations: ['Client, Design, Task1', 'Client, Review,.'] }],
    })
    const bob = await body<TagList>(await call('GET', '/api/tagcombinationlist', { as: USERS.bob.username }))
    expect(bob.tagCombinations).toEqual(['project, task1', 'project, task2', 'Client, Design, Task1', 'Client, Review,.'])
  })

  it('combines consecutive prefix lines with every sub-line, as the administration page example does', async () => {
    const { call, store } = withList()
    const response = await call('POST', '/api/tagcombinationlist', {
      as: USERS.editor.username,
      body: { tagCombinations: ['Project X,', 'Project Y,', ',Design', ',Development', ',Testing,.'] },
    })
    expect(response.status).toBe(200)
    expect(store.allowedTags().everyone).toEqual([
      'Project X, Design',
      'Project X, Development',
      'Project X, Testing,.',
      'Project Y, Design',
      'Project Y, Development',
      'Project Y, Testing,.',
    ])
  })

  it('lets the administrator post too, without user lists', async () => {
    const { call, store } = withList()
    const response = await call('POST', '/api/tagcombinationlist', { as: USERS.admin.username, body: { tagCombinations: ['A, B'] } })
    expect(response.status).toBe(200)
    expect(store.allowedTags()).toEqual({ everyone: ['A, B'], groups: [] })
  })

  it.each(['reader', 'alice'] as const)('refuses the %s with 403 and keeps the list', async (who) => {
    const { call, store } = withList()
    const before = store.allowedTags()
    const response = await call('POST', '/api/tagcombinationlist', { as: USERS[who].username, body: { tagCombinations: [] } })
    expect(response.status).toBe(403)
    expect(store.allowedTags()).toEqual(before)
  })

  it('refuses with 409 Tags/SourceNotService when the tag source is not the service', async () => {
    const { call, store } = withList()
    store.settings.tagSource = 'other'
    const before = store.allowedTags()
    const response = await call('POST', '/api/tagcombinationlist', { as: USERS.editor.username, body: { tagCombinations: ['A'] } })
    expect(response.status).toBe(409)
    expect(await response.json()).toMatchObject({ errorCode: 'Tags/SourceNotService' })
    expect(store.allowedTags()).toEqual(before)
  })

  it.each([
    ['no tagCombinations', { userTagCombinationLists: [] }, /tagCombinations/],
    ['a line without its prefix', { tagCombinations: [',orphan'] }, /tagCombinations: line 1/],
    [
      'a bad user list',
      { tagCombinations: [], userTagCombinationLists: [{ users: ['x'], tagCombinations: [',,deep'] }] },
      /userTagCombinationLists\[0\]/,
    ],
    ['a user list for nobody', { tagCombinations: [], userTagCombinationLists: [{ users: [], tagCombinations: ['A'] }] }, /users is empty/],
    ['not JSON', 'nope', /not valid JSON/],
  ])('refuses %s with 400 Validation and keeps the list', async (_name, payload, message) => {
    const { call, store } = withList()
    const before = store.allowedTags()
    const response = await call('POST', '/api/tagcombinationlist', { as: USERS.editor.username, body: payload })
    expect(response.status).toBe(400)
    expect((await body<{ message: string }>(response)).message).toMatch(message)
    expect(store.allowedTags()).toEqual(before)
  })

  it('answers other methods with 405', async () => {
    const { call } = withList()
    expect((await call('PUT', '/api/tagcombinationlist', { as: USERS.editor.username, body: {} })).status).toBe(405)
  })
})
