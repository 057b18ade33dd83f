package oauth

// Release drops the client the manager holds for user's server, keeping its
// stored tokens and registrations: the next [Manager.For] builds one for the
// server's new URL (an edit that kept the URL's origin).
func (m *Manager) Release(user, server string) {
	m.mu.Lock()
	c := m.clients[clientKey{user, server}]
	delete(m.clients, clientKey{user, server})
	m.mu.Unlock()
	m.starts.forget(user, server)
	if c != nil {
		c.forget()
	}
}
