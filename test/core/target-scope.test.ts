import { describe, expect, it } from 'vitest'
import { knownUsers, scopeOfTarget, targetScope } from '../../src/core/target-scope.ts'

const directory = {
  Design: ['carol@example.com', 'dave@example.com'],
  Support: ['dave@example.com', 'erin@example.com'],
  Board: ['alice@example.com'],
}
const team = targetScope({ users: ['carol@example.com', 'dave@example.com'], teams: ['Design'], teamDirectory: directory })
const whole = targetScope({ users: [], teamDirectory: directory })

describe('whom a target covers', () => {
  it('covers its users, without case, and nobody else', () => {
    expect(team.covers('Carol@Example.com')).toBe(true)
    expect(team.covers('alice@example.com')).toBe(false)
    expect(team.whole).toBe(false)
  })

  it('covers everyone when it lists nobody', () => {
    expect(whole.whole).toBe(true)
    expect(whole.covers('anyone@example.com')).toBe(true)
    expect(whole.owns(['[anyone@example.com]'])).toBe(true)
  })

  it('knows each user’s teams from the directory', () => {
    expect(team.teamsOf('dave@example.com')).toEqual(['Design', 'Support'])
    expect(team.teamsOf('zoe@example.com')).toEqual([])
  })

  it.each([
    ['a covered user', ['[carol@example.com]'], true, true],
    ['another user', ['[alice@example.com]'], false, false],
    ['a covered user beside another', ['[carol@example.com]', '[alice@example.com]'], true, false],
    ['two names in one entry, one outside', ['[carol@example.com, alice@example.com]'], true, false],
    ['a team it lists', ['{Design}'], true, true],
    ['a team with one covered member', ['{Support}'], true, false],
    ['a team of others', ['{Board}'], false, false],
    ['a team the config does not know', ['{Sales}'], false, false],
    ['a group that names nobody', [], false, false],
  ] as const)('a line for %s: reached %s, owned %s', (_name, appliesTo, reached, owned) => {
    expect(team.reaches(appliesTo)).toBe(reached)
    expect(team.owns(appliesTo)).toBe(owned)
  })

  it('a team whose members are all covered is the target’s own, listed or not', () => {
    const scope = targetScope({ users: ['alice@example.com', 'carol@example.com'], teamDirectory: directory })
    expect(scope.owns(['{Board}'])).toBe(true)
    expect(scope.owns(['{Design}'])).toBe(false)
  })

  it('edits default to own lines for a team and to everything for the whole server', () => {
    expect(scopeOfTarget({ users: ['carol@example.com'] }).edits).toBe('own')
    expect(scopeOfTarget({ users: [] }).edits).toBe('own-and-everyone')
    expect(scopeOfTarget({ users: ['carol@example.com'], allowedTagsEdits: 'read-only' }).edits).toBe('read-only')
  })

  it('the users a sheet may name are the covered owners of Tags timelines, with their teams', () => {
    const timelines = [
      { timelineKey: 'a', ownerUsername: 'alice@example.com', ownerDisplayName: 'Alice' },
      { timelineKey: 'c', ownerUsername: 'carol@example.com', ownerDisplayName: 'Carol' },
      { timelineKey: 'd', ownerUsername: 'dave@example.com', ownerDisplayName: 'Dave' },
    ]
    expect(knownUsers(timelines, team)).toEqual([
      { username: 'carol@example.com', displayName: 'Carol', tagsTimelineKey: 'c', teams: ['Design'] },
      { username: 'dave@example.com', displayName: 'Dave', tagsTimelineKey: 'd', teams: ['Design', 'Support'] },
    ])
    expect(knownUsers(timelines, whole).map((u) => u.username)).toEqual(['alice@example.com', 'carol@example.com', 'dave@example.com'])
  })
})
