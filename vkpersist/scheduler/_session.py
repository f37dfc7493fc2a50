class Session: pass
