/*
 * Fuzzes what a client controls in a request and what the driver or /proc
 * controls in a label: the request target's route, the Authorization
 * header's decoding, and label-value escaping.  Input: the target up to
 * the first newline, the header after it; the whole input is also a label
 * value.  Invariants: only the exact paths route; credentials decode into
 * the buffer; an escaped label value is valid UTF-8 with no raw newline or
 * unescaped quote.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/expo.h"
#include "export/server.h"

/* A minimal UTF-8 check, independent of the escaper's own. */
static int valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i], need, cp, k;
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			need = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			need = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			need = 3;
			cp = c & 0x07;
		} else {
			return 0;
		}
		for (k = 1; k <= need; k++) {
			if (i + k >= n || (s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += need + 1;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *nl, dec[256];
	const char *user, *password, *target, *esc;
	struct strbuf b;
	size_t plen, i;
	int r;

	memcpy(buf, data, size);
	buf[size] = '\0';

	/* the whole input as a label value */
	strbuf_init(&b, 0);
	expo_escape_label_value(&b, buf);
	esc = strbuf_str(&b);
	if (!valid_utf8((const unsigned char *)esc, b.len))
		abort();
	for (i = 0; i < b.len; i++) {
		if (esc[i] == '\n')
			abort();
		if (esc[i] == '\\') {
			if (i + 1 >= b.len || !strchr("\\\"n", esc[i + 1]))
				abort();
			i++;
		} else if (esc[i] == '"') {
			abort();
		}
	}
	strbuf_release(&b);

	/* the request target, then the Authorization header */
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	target = buf;
	r = server_route(target);
	plen = strcspn(target, "?");
	if ((r == 2) != (plen == 8 && !memcmp(target, "/metrics", 8)) ||
	    (r == 3) != (plen == 7 && !memcmp(target, "/health", 7)) ||
	    (r == 4) != (plen == 1 && target[0] == '/') || r < 1 || r > 4)
		abort();
	if (nl && server_basic_credentials(nl + 1, dec, sizeof(dec), &user, &password) == 0) {
		if (user < dec || password <= user || password >= dec + sizeof(dec) ||
		    strlen(user) + 1 + strlen(password) >= sizeof(dec))
			abort();
	}
	free(buf);
	return 0;
}
