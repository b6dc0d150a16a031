import { keepShape } from '../../../lib/kept-shapes.ts'
import { outputTooLarge } from './errors.ts'

// Output written piece by piece under the cap: a writer stops as soon as it passes maxOutputBytes (counted
// in UTF-16 units as it goes, a lower bound of the UTF-8 bytes; convert.ts checks the bytes at the end).
export class Output {
  text = ''
  private readonly max: number
  constructor(max: number) {
    this.max = max
  }

  write(piece: string): void {
    this.text += piece
    if (this.text.length > this.max) throw outputTooLarge(this.max)
  }
}
keepShape(new Output(0))
