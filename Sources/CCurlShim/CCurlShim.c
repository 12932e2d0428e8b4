#include "CCurlShim.h"

CURLcode hp_curl_set_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode hp_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode hp_curl_set_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode hp_curl_set_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode hp_curl_set_callback(CURL *handle, CURLoption option, hp_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

long hp_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

curl_off_t hp_curl_content_length(CURL *handle) {
    curl_off_t length = -1;
    curl_easy_getinfo(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}

const char *hp_curl_content_type(CURL *handle) {
    char *type = NULL;
    curl_easy_getinfo(handle, CURLINFO_CONTENT_TYPE, &type);
    return type;
}

const char *hp_curl_redirect_url(CURL *handle) {
    char *url = NULL;
    curl_easy_getinfo(handle, CURLINFO_REDIRECT_URL, &url);
    return url;
}
