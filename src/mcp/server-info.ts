/** How the MCP server names itself (`initialize`), and the version the OpenAPI document states. */
export const SERVER_INFO = { name: 'vms-read', version: '0.1.0' };
