import { CopyButton } from '../CopyButton';

/** How an MCP client reaches this wiki: the endpoint, the header, and a config to paste. */
export function ConnectAssistant() {
  const origin = window.location.origin;
  const endpoint = `${origin}/api/v1/mcp`;
  const config = JSON.stringify(
    {
      mcpServers: {
        wiki: { type: 'http', url: endpoint, headers: { 'X-Mcp-Api-Key': '<your key>' } },
      },
    },
    null,
    2,
  );
  return (
    <section aria-labelledby="connect-heading">
      <h2 id="connect-heading">How to connect an assistant</h2>
      <p>
        An AI assistant that speaks the Model Context Protocol (MCP) can list, search, read and write documents as you,
        with your roles in each workspace. Give it a key from above and this address:
      </p>
      <dl className="facts">
        <dt>MCP endpoint</dt>
        <dd>
          <code>{endpoint}</code> (Streamable HTTP)
        </dd>
        <dt>Older clients (SSE)</dt>
        <dd>
          <code>{`${endpoint}/sse`}</code>
        </dd>
        <dt>Header</dt>
        <dd>
          <code>X-Mcp-Api-Key: &lt;your key&gt;</code>
        </dd>
      </dl>
      <p>A client configuration (for example an editor's or desktop assistant's mcp.json):</p>
      {/* Wrapped, never scrolled: a scrolling region would have to take the keyboard focus. */}
      <pre className="code-block">
        <code>{config}</code>
      </pre>
      <div className="form-actions">
        <CopyButton text={config} label="Copy configuration">
          Copy configuration
        </CopyButton>
      </div>
    </section>
  );
}
