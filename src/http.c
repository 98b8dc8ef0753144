/*
 * http.c - see http.h.
 */
#include "http.h"

void http_easy_setup(CURL *easy, const char *url,
		     curl_write_callback on_body, void *data, char *errbuf,
		     double timeout_s, size_t max_body)
{
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(easy, CURLOPT_WRITEDATA, data);
	curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(easy, CURLOPT_USERAGENT, "staffer");
	curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_body);
}
