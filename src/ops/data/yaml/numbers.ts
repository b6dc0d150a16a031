import { type DataNumber, numberFromJsonText, SpecialFloat } from '../model/value.ts'

// YAML 1.2 core schema numbers (spec 10.3.2) from their source text to the value model, exactly: the
// text is kept where it is already JSON's syntax and rewritten into it where not (+12 → 12, 0o17 → 15,
// 0x1F → 31, 007 → 7, .5 → 0.5, 1. → 1.0, 1.e3 → 1.0e3, !!float 12 → 12.0), and never goes through a
// double unless the double prints back the same.

const INT_TAG = 'tag:yaml.org,2002:int'
const FLOAT_TAG = 'tag:yaml.org,2002:float'

const DECIMAL = /^([-+]?)([0-9]+)$/
const OCTAL = /^0o[0-7]+$/
const HEX = /^0x[0-9a-fA-F]+$/
const FLOAT = /^([-+]?)(?:\.([0-9]+)|([0-9]+)(?:\.([0-9]*))?)([eE][-+]?[0-9]+)?$/
const INFINITY = /^([-+]?)\.(?:inf|Inf|INF)$/
const NAN = /^\.(?:nan|NaN|NAN)$/

function withoutLeadingZeros(digits: string): string {
  let i = 0
  while (i < digits.length - 1 && digits.charCodeAt(i) === 0x30) i++
  return digits.slice(i)
}

function integerText(sign: string, digits: string): string {
  const canonical = withoutLeadingZeros(digits)
  return sign === '-' && canonical !== '0' ? `-${canonical}` : canonical
}

// The number a core-schema int or float scalar holds; undefined when its text is not one (an explicit
// !!int on 1.5). `tag` is the scalar's explicit tag, if it has one.
export function yamlNumber(
  source: string,
  tag: string | undefined,
): number | DataNumber | SpecialFloat | undefined {
  const float = tag === FLOAT_TAG
  const decimal = DECIMAL.exec(source)
  if (decimal && !float) return numberFromJsonText(integerText(decimal[1]!, decimal[2]!), true)
  if (OCTAL.test(source) || HEX.test(source)) {
    const value = BigInt(source)
    return float ? numberFromJsonText(`${value}.0`, false) : numberFromJsonText(String(value), true)
  }
  if (tag === INT_TAG) return undefined
  const infinity = INFINITY.exec(source)
  if (infinity) return new SpecialFloat(infinity[1] === '-' ? '-inf' : 'inf')
  if (NAN.test(source)) return new SpecialFloat('nan')
  const parts = FLOAT.exec(source)
  if (!parts) return undefined
  const [, sign, fractionOnly, whole, fraction, exponent] = parts
  const exp = exponent ?? ''
  let mantissa: string
  if (fractionOnly !== undefined) mantissa = `0.${fractionOnly}`
  else if (fraction === undefined) mantissa = withoutLeadingZeros(whole!) + (exp === '' ? '.0' : '')
  else mantissa = `${withoutLeadingZeros(whole!)}.${fraction === '' ? '0' : fraction}`
  return numberFromJsonText(`${sign === '-' ? '-' : ''}${mantissa}${exp}`, false)
}
