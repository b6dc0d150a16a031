import { PROTOTYPE_NAMES } from '../shape.ts'
import { isObject, type JsonObject } from '../value.ts'
import type { Check, Node } from './compile.ts'
import type { Context } from './context.ts'
import type { Place } from './resources.ts'

// `properties` and `required` read an instance's members by the names their schema lists. Read in a
// loop, `v[name]` with a name that changes every turn is a megamorphic keyed load: a hash lookup each
// time, most of a batch's validation (10k orders: 8 of 30 ms). So, like ajv, each compiles to a function
// that reads its names as literals, `v["sku"]`, a load V8 caches per object shape: instances JSON.parse
// made with the same members in the same order share one. The names are written as JSON string literals
// (JSON.stringify), which are JavaScript ones: no name can be anything but a string. A schema that lists
// more than GENERATED_UP_TO names keeps the loop (a generated function's size grows with them).
//
// A member is present when its read is not undefined (a JSON value never is), except for names
// Object.prototype has ("constructor", "__proto__" ...), which a plain read finds on the prototype: those
// are read only when Object.hasOwn says they are there.

export const GENERATED_UP_TO = 64

function read(name: string): string {
  const key = JSON.stringify(name)
  return PROTOTYPE_NAMES.has(name) ? `(hasOwn(v, ${key}) ? v[${key}] : undefined)` : `v[${key}]`
}

function member(v: JsonObject, name: string): unknown {
  return PROTOTYPE_NAMES.has(name) ? (Object.hasOwn(v, name) ? v[name] : undefined) : v[name]
}

// properties: each listed member present checked against its node.
export function propertiesCheck(names: string[], nodes: Node[]): Check {
  if (names.length > GENERATED_UP_TO) {
    return (v, cx, ev) => {
      if (!isObject(v)) return true
      let valid = true
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!
        const item = member(v, name)
        if (item === undefined) continue
        cx.enter(name)
        if (!nodes[i]!.check(item, cx, undefined)) valid = false
        cx.leave()
        ev?.prop(name)
      }
      return valid
    }
  }
  const body = names
    .map((name, i) => {
      const key = JSON.stringify(name)
      return (
        `x = ${read(name)}\n` +
        `if (x !== undefined) {\n` +
        `  cx.enter(${key})\n` +
        `  if (!nodes[${i}].check(x, cx, undefined)) valid = false\n` +
        `  cx.leave()\n` +
        `  if (ev !== undefined) ev.prop(${key})\n` +
        `}\n`
      )
    })
    .join('')
  const make = new Function(
    'nodes',
    'isObject',
    'hasOwn',
    `return function properties(v, cx, ev) {\nif (!isObject(v)) return true\nlet valid = true\nlet x\n${body}return valid\n}`,
  )
  return make(nodes, isObject, Object.hasOwn) as Check
}

// required: each listed member missing is an output unit.
export function requiredCheck(names: string[], place: Place): Check {
  const messages = names.map((name) => `the required property "${name}" is missing`)
  if (names.length > GENERATED_UP_TO) {
    return (v, cx) => {
      if (!isObject(v)) return true
      let valid = true
      for (let i = 0; i < names.length; i++) {
        if (member(v, names[i]!) === undefined) valid = cx.fail(place, 'required', messages[i]!)
      }
      return valid
    }
  }
  const body = names.map((name, i) => `if (${read(name)} === undefined) valid = fail(cx, ${i})\n`).join('')
  const make = new Function(
    'fail',
    'isObject',
    'hasOwn',
    `return function required(v, cx) {\nif (!isObject(v)) return true\nlet valid = true\n${body}return valid\n}`,
  )
  const fail = (cx: Context, i: number) => cx.fail(place, 'required', messages[i]!)
  return make(fail, isObject, Object.hasOwn) as Check
}
