package wire

// CodeUnauthorized answers an [Auth] frame sent on an open socket whose
// token the relay refused: the socket lives on with the token it had.
const CodeUnauthorized Code = "unauthorized"
