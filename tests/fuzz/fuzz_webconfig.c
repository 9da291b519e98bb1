/*
 * Fuzzes the web configuration parser (any YAML must give a configuration
 * or a located error, never a crash) and, for inputs that start with
 * "Accept:", the content negotiation of /metrics.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/expo.h"
#include "export/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (size >= 7 && !memcmp(buf, "Accept:", 7)) {
		const char *ct;
		enum expo_format f = expo_negotiate(buf + 7, &ct);
		if (f != EXPO_TEXT && f != EXPO_OPENMETRICS)
			abort();
		if (strncmp(ct, f == EXPO_TEXT ? "text/plain" : "application/openmetrics-text", 10))
			abort();
	} else {
		struct web_config *c = NULL;
		struct diag err;
		char msg[1024];
		diag_clear(&err);
		if (web_config_parse(buf, size, "fuzz.yml", WEBCFG_NO_FILES, &c, &err) < 0) {
			if (c)
				abort();
			diag_format(&err, msg, sizeof(msg));
		} else {
			/* a parsed configuration is consistent */
			if (!c || (c->tls && (!c->cert_pem || !c->key_pem || !c->priorities)))
				abort();
			/* a client-certificate setting is never accepted without TLS to apply it */
			if (!c->tls && (c->allowed_sans || c->nsans || c->client_auth != CLIENT_AUTH_NONE ||
					c->client_ca_pem))
				abort();
			web_config_rate_allow(c, 0);
			web_config_free(c);
		}
	}
	free(buf);
	return 0;
}
