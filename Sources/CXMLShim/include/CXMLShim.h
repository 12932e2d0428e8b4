#ifndef CXMLSHIM_H
#define CXMLSHIM_H

// libxml2's tree behind opaque pointers. Its own headers are not exposed to Swift: Debian's
// libxml2 is built with ICU, and its headers bring ICU's, which clash with Foundation's copy of
// them in any module that imports both.

typedef struct hp_xml_document hp_xml_document;
typedef struct hp_xml_node hp_xml_node;
typedef struct hp_xml_attribute hp_xml_attribute;

enum hp_xml_kind { HP_XML_OTHER = 0, HP_XML_ELEMENT = 1, HP_XML_TEXT = 2 };

/// Parses `length` bytes with no network access and no entity expansion; NULL when they are not
/// well-formed XML, with libxml2's message in `error` (`error_length` bytes at most).
hp_xml_document *hp_xml_read(const char *bytes, int length, char *error, int error_length);
void hp_xml_free(hp_xml_document *document);

const hp_xml_node *hp_xml_root(const hp_xml_document *document);
enum hp_xml_kind hp_xml_node_kind(const hp_xml_node *node);
/// An element's local name.
const char *hp_xml_node_name(const hp_xml_node *node);
/// A text or CDATA node's text.
const char *hp_xml_node_text(const hp_xml_node *node);
const hp_xml_node *hp_xml_first_child(const hp_xml_node *node);
const hp_xml_node *hp_xml_next(const hp_xml_node *node);

const hp_xml_attribute *hp_xml_first_attribute(const hp_xml_node *node);
const hp_xml_attribute *hp_xml_next_attribute(const hp_xml_attribute *attribute);
const char *hp_xml_attribute_name(const hp_xml_attribute *attribute);
/// An attribute's value as its text nodes hold it, entity references as written.
const hp_xml_node *hp_xml_attribute_first_text(const hp_xml_attribute *attribute);

#endif
