#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// function per kind of value.
typedef size_t (*hp_curl_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode hp_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode hp_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode hp_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode hp_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode hp_curl_set_callback(CURL *handle, CURLoption option, hp_curl_data_callback callback);

long hp_curl_response_code(CURL *handle);
/// -1 when the server gave none.
curl_off_t hp_curl_content_length(CURL *handle);
/// NULL when the server gave none.
const char *hp_curl_content_type(CURL *handle);
/// Where a 3xx answer's Location points, resolved against the URL asked; NULL when none.
const char *hp_curl_redirect_url(CURL *handle);

#endif
