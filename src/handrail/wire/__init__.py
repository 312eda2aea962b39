"""The wire contract: every name a client and the server share (methods, commands, chat events, modes) in
`names` (cheap: the server registers its handlers with them before anything heavy loads), and their
parameter and result models in `models` (pydantic). protocol/handrail.schema.json is generated from them."""
