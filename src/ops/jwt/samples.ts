// Tokens the jwt ops' examples and warm-up share: jwt.io's sample, and one HS256 token reproducible from the
// sign example's payload and secret.
export const JWT_IO_SAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

export const SAMPLE_SECRET = 'a-string-secret-at-least-256-bits-long'
export const SAMPLE_PAYLOAD = { sub: '42', role: 'admin', iat: 1700000000, exp: 1700003600 }
export const SAMPLE_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0.eyJzdWIiOiI0MiIsInJvbGUiOiJhZG1pbiIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ.MBQL0eUGSfznUV6LYDHe8wOTvScEILR_fba4a4G-4v8'
