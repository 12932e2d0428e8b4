#include "CXMLShim.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

hp_xml_document *hp_xml_read(const char *bytes, int length, char *error, int error_length) {
    xmlDocPtr document = xmlReadMemory(bytes, length, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (document == NULL && error != NULL && error_length > 0) {
        const xmlError *last = xmlGetLastError();
        strncpy(error, last != NULL && last->message != NULL ? last->message : "not XML", (size_t)error_length - 1);
        error[error_length - 1] = 0;
    }
    return (hp_xml_document *)document;
}

void hp_xml_free(hp_xml_document *document) { xmlFreeDoc((xmlDocPtr)document); }

const hp_xml_node *hp_xml_root(const hp_xml_document *document) {
    return (const hp_xml_node *)xmlDocGetRootElement((const xmlDoc *)document);
}

enum hp_xml_kind hp_xml_node_kind(const hp_xml_node *node) {
    switch (((const xmlNode *)node)->type) {
    case XML_ELEMENT_NODE: return HP_XML_ELEMENT;
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE: return HP_XML_TEXT;
    default: return HP_XML_OTHER;
    }
}

const char *hp_xml_node_name(const hp_xml_node *node) { return (const char *)((const xmlNode *)node)->name; }
const char *hp_xml_node_text(const hp_xml_node *node) { return (const char *)((const xmlNode *)node)->content; }
const hp_xml_node *hp_xml_first_child(const hp_xml_node *node) { return (const hp_xml_node *)((const xmlNode *)node)->children; }
const hp_xml_node *hp_xml_next(const hp_xml_node *node) { return (const hp_xml_node *)((const xmlNode *)node)->next; }

const hp_xml_attribute *hp_xml_first_attribute(const hp_xml_node *node) {
    return (const hp_xml_attribute *)((const xmlNode *)node)->properties;
}
const hp_xml_attribute *hp_xml_next_attribute(const hp_xml_attribute *attribute) {
    return (const hp_xml_attribute *)((const xmlAttr *)attribute)->next;
}
const char *hp_xml_attribute_name(const hp_xml_attribute *attribute) { return (const char *)((const xmlAttr *)attribute)->name; }
const hp_xml_node *hp_xml_attribute_first_text(const hp_xml_attribute *attribute) {
    return (const hp_xml_node *)((const xmlAttr *)attribute)->children;
}
