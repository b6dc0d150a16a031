import { describe, expect, it } from 'vitest'
import { monitorArgs } from './redis-monitor.ts'

// The MONITOR line reader the Redis tests count commands with (the lines as redis-server writes them)
describe('monitorArgs', () => {
  it('reads a client command and a command from a Lua script', () => {
    expect(monitorArgs('+1795708753.620565 [0 127.0.0.1:48550] "ping"')).toEqual(['ping'])
    expect(monitorArgs('+1795708753.620565 [0 lua] "HMGET" "anvil:{ws:ws_1}:m" "a" "b"')).toEqual([
      'HMGET',
      'anvil:{ws:ws_1}:m',
      'a',
      'b',
    ])
  })
  it('undoes the escapes, bytes read as UTF-8', () => {
    const line = String.raw`+1.0 [0 127.0.0.1:1] "set" "a\"b\\c" "l1\nl2\r\t" "caf\xc3\xa9" "\x00"`
    expect(monitorArgs(line)).toEqual(['set', 'a"b\\c', 'l1\nl2\r\t', 'café', '\u0000'])
  })
})
