import { unrepresentable } from '../model/errors.ts'
import { Output } from '../model/output.ts'
import { DataDate, DataNumber, type DataValue, SpecialFloat } from '../model/value.ts'

// The value model to JSON text (RFC 8259): numbers as their exact text, dates as their RFC 3339 strings,
// key order kept; infinities and NaN have no JSON form and are refused. `indent` 0 writes one line.
export function writeJson(root: DataValue, indent: number | '\t', maxBytes: number): string {
  const out = new Output(maxBytes)
  const unit = indent === '\t' ? '\t' : ' '.repeat(indent)
  const path: (string | number)[] = []
  const colon = unit === '' ? ':' : ': '
  const write = (value: DataValue, depth: number): void => {
    if (value === null) out.write('null')
    else if (typeof value === 'string') out.write(JSON.stringify(value))
    else if (typeof value === 'number') out.write(String(value))
    else if (typeof value === 'boolean') out.write(value ? 'true' : 'false')
    else if (value instanceof DataNumber) out.write(value.text)
    else if (value instanceof DataDate) out.write(`"${value.text}"`)
    else if (value instanceof SpecialFloat) {
      throw unrepresentable('json', path, 'non_finite', `the float ${value.text}`)
    } else {
      const isMap = value instanceof Map
      const size = isMap ? value.size : value.length
      if (size === 0) {
        out.write(isMap ? '{}' : '[]')
        return
      }
      const inner = unit === '' ? '' : `\n${unit.repeat(depth + 1)}`
      out.write(isMap ? '{' : '[')
      let first = true
      if (isMap) {
        for (const [key, item] of value) {
          out.write(first ? inner : `,${inner}`)
          first = false
          out.write(JSON.stringify(key) + colon)
          path.push(key)
          write(item, depth + 1)
          path.pop()
        }
      } else {
        for (let i = 0; i < value.length; i++) {
          out.write(i === 0 ? inner : `,${inner}`)
          path.push(i)
          write(value[i]!, depth + 1)
          path.pop()
        }
      }
      out.write(unit === '' ? (isMap ? '}' : ']') : `\n${unit.repeat(depth)}${isMap ? '}' : ']'}`)
    }
  }
  write(root, 0)
  return out.text
}
