// The time family's constant lists, for the ops and their routes alike.

export const DAY_NAMES = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const
export type DayName = (typeof DAY_NAMES)[number]

export const UNITS = ['s', 'ms', 'us', 'ns'] as const
export type Unit = (typeof UNITS)[number]
